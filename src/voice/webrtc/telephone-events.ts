import { TelephoneEventRtpPayload } from 'werift';

/** RFC 4733 §3.2: events 0–15 are the DTMF keys. */
const DTMF_KEYS = '0123456789*#ABCD';

/**
 * Turns the RFC 4733 telephone-event packets of one RTP stream into key presses. All packets of one
 * event share its RTP timestamp (start, updates, and the end packet sent three times), so a key is
 * reported once, on the first packet of a timestamp not seen before: a lost start packet is made up
 * for by the updates or the end packets behind it.
 */
export class TelephoneEventReceiver {
  private lastEventTimestamp: number | undefined;

  constructor(private readonly onKey: (key: string) => void) {}

  receive(rtpTimestamp: number, payload: Buffer): void {
    if (payload.length < 4) return;
    const { event } = TelephoneEventRtpPayload.deSerialize(payload);
    if (event >= DTMF_KEYS.length || rtpTimestamp === this.lastEventTimestamp) return;
    this.lastEventTimestamp = rtpTimestamp;
    this.onKey(DTMF_KEYS[event]);
  }
}
