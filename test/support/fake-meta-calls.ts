import { randomBytes } from 'node:crypto';
import type { CloudAnswer, CloudRequest } from './fake-cloud-api.js';
import { FakeCloudApi } from './fake-cloud-api.js';
import { FarEndPeer } from './webrtc-far-end.js';

/** What the called WhatsApp user does. */
export interface CalleeBehaviour {
  /** `accept` picks up after `ringMs`; `reject` declines after it; `ignore` lets it ring. */
  answer: 'accept' | 'reject' | 'ignore';
  ringMs: number;
  /** The user hangs up this long after accepting (Meta's `terminate` webhook). */
  hangUpAfterMs?: number;
  /** `unreachable`: Meta's media edge is gone once it answered the SDP (nothing answers ICE there), so the media path never connects. */
  media?: 'ok' | 'unreachable';
  /** `never`: the `connect` webhook with Meta's SDP answer is lost; `twice`: it is delivered again after ACCEPTED (a webhook redelivery). */
  answerWebhook?: 'once' | 'never' | 'twice';
}

export interface FakeCall {
  id: string;
  /** The user: the number (digits) called or calling, or their BSUID when they share no number. */
  to: string;
  tracking: string | undefined;
  peer: FarEndPeer;
  acceptedAt?: number;
  /** performance.now() when ACCEPTED was posted (the far end's packets are timed on that clock). */
  acceptedPerf?: number;
  terminatedBy?: 'business' | 'user';
  /** A user-initiated call the business rejected (`action: reject`). */
  rejected?: boolean;
  direction: 'BUSINESS_INITIATED' | 'USER_INITIATED';
  /** The actions the business took on a user-initiated call, in order (`pre_accept`, `accept`). */
  actions: string[];
}

/**
 * Meta's Calling API side of the fake Graph API: `POST /{phone-number-id}/calls` with `connect`
 * answers `{ messaging_product, calls: [{ id }] }` and has a real WebRTC peer (ICE lite, as Meta's
 * edge) answer the business's SDP offer; it then posts the `calls` webhooks as Meta does (the
 * `connect` with the SDP answer, RINGING, then ACCEPTED or REJECTED), signed with the app secret.
 * `terminate` ends the peer and is confirmed by a `terminate` webhook with the duration.
 */
export class FakeMetaCalls {
  readonly calls = new Map<string, FakeCall>();
  callee: CalleeBehaviour = { answer: 'accept', ringMs: 200 };
  /** Answers for the next `connect` actions, in order (Meta's refusals). */
  readonly connectScript: CloudAnswer[] = [];

  constructor(
    private readonly webhookUrl: string,
    private readonly appSecret: string,
    private readonly phoneNumberId: string,
  ) {}

  async answer(request: CloudRequest): Promise<CloudAnswer> {
    const body = (request.body ?? {}) as {
      action?: string;
      to?: string;
      recipient?: string;
      call_id?: string;
      session?: { sdp_type?: string; sdp?: string };
      biz_opaque_callback_data?: string;
    };
    if (body.action === 'connect') {
      const scripted = this.connectScript.shift();
      if (scripted) return scripted;
      if (body.session?.sdp_type !== 'offer' || !body.session.sdp) return FakeCloudApi.error(400, 100, 'Invalid parameter: session');
      const id = `wacid.${randomBytes(18).toString('base64url')}`;
      const peer = await FarEndPeer.answer(body.session.sdp);
      const call: FakeCall = {
        id,
        to: body.to ?? body.recipient ?? '',
        tracking: body.biz_opaque_callback_data,
        peer,
        direction: 'BUSINESS_INITIATED',
        actions: [],
      };
      this.calls.set(id, call);
      const answerSdp = peer.answerSdp;
      if (this.callee.media === 'unreachable') await peer.close();
      void this.ring(call, answerSdp).catch((err: unknown) => console.error('fake Meta calls:', err));
      return { status: 200, body: { messaging_product: 'whatsapp', calls: [{ id }] } };
    }
    if (body.action === 'pre_accept' || body.action === 'accept') {
      const call = this.calls.get(body.call_id ?? '');
      if (!call || call.direction !== 'USER_INITIATED') return FakeCloudApi.error(400, 100, 'Invalid parameter: call_id');
      if (call.terminatedBy || call.rejected) return FakeCloudApi.error(400, 138002, 'The call is no longer active');
      if (body.session?.sdp_type !== 'answer' || !body.session.sdp) return FakeCloudApi.error(400, 100, 'Invalid parameter: session');
      // The first answer (pre_accept's, or accept's without one) sets up the media path.
      if (call.actions.length === 0) await call.peer.acceptAnswer(body.session.sdp);
      call.actions.push(body.action);
      if (body.action === 'accept') {
        call.acceptedAt = Date.now();
        call.tracking = body.biz_opaque_callback_data;
      }
      return { status: 200, body: { messaging_product: 'whatsapp', success: true } };
    }
    if (body.action === 'reject') {
      const call = this.calls.get(body.call_id ?? '');
      if (!call) return FakeCloudApi.error(400, 100, 'Invalid parameter: call_id');
      call.rejected = true;
      await call.peer.close();
      return { status: 200, body: { messaging_product: 'whatsapp', success: true } };
    }
    if (body.action === 'terminate') {
      const call = this.calls.get(body.call_id ?? '');
      if (!call) return FakeCloudApi.error(400, 100, 'Invalid parameter: call_id');
      await this.terminate(call, 'business');
      return { status: 200, body: { messaging_product: 'whatsapp', success: true } };
    }
    return FakeCloudApi.error(400, 100, `Unsupported action ${body.action}`);
  }

  /**
   * A WhatsApp user calls the business: Meta's `connect` webhook with its SDP offer (a real peer's).
   * `from` is the user's number (digits), or their BSUID: a user who shares no number is named by
   * `from_user_id` only; or both, for a user who shares their number and has a BSUID.
   */
  async userCalls(from: string | { number: string; userId: string }): Promise<FakeCall> {
    const peer = await FarEndPeer.offer();
    const id = `wacid.${randomBytes(18).toString('base64url')}`;
    const number = typeof from === 'string' ? from : from.number;
    const call: FakeCall = { id, to: number, tracking: undefined, peer, direction: 'USER_INITIATED', actions: [] };
    this.calls.set(id, call);
    await this.post(
      this.callsChange([
        {
          id,
          // A user who shares their number and has a BSUID is named by both (`from` and `from_user_id`).
          ...(typeof from === 'string' ? user('from', from) : { from: from.number, from_user_id: from.userId }),
          to: BUSINESS_NUMBER,
          event: 'connect',
          timestamp: nowSeconds(),
          direction: 'USER_INITIATED',
          session: { sdp_type: 'offer', sdp: peer.offerSdp },
        },
      ]),
    );
    return call;
  }

  /** The user hangs up. */
  async hangUp(callId: string): Promise<void> {
    await this.terminate(this.calls.get(callId)!, 'user');
  }

  async closeAll(): Promise<void> {
    for (const call of this.calls.values()) await call.peer.close();
  }

  private async ring(call: FakeCall, answerSdp: string): Promise<void> {
    const answerWebhook = this.callee.answerWebhook ?? 'once';
    const connect = this.callsChange([
      {
        id: call.id,
        ...user('to', call.to),
        from: BUSINESS_NUMBER,
        event: 'connect',
        timestamp: nowSeconds(),
        direction: 'BUSINESS_INITIATED',
        session: { sdp_type: 'answer', sdp: answerSdp },
        ...(call.tracking && { biz_opaque_callback_data: call.tracking }),
      },
    ]);
    if (answerWebhook !== 'never') await this.post(connect);
    await this.post(this.statusChange(call, 'RINGING'));
    if (this.callee.answer === 'ignore') return;
    await new Promise((resolve) => setTimeout(resolve, this.callee.ringMs));
    if (call.terminatedBy) return;
    if (this.callee.answer === 'reject') {
      await call.peer.close();
      await this.post(this.statusChange(call, 'REJECTED'));
      return;
    }
    call.acceptedAt = Date.now();
    call.acceptedPerf = performance.now();
    await this.post(this.statusChange(call, 'ACCEPTED'));
    if (answerWebhook === 'twice') await this.post(connect);
    const { hangUpAfterMs } = this.callee;
    if (hangUpAfterMs !== undefined) setTimeout(() => void this.terminate(call, 'user').catch(() => undefined), hangUpAfterMs);
  }

  private async terminate(call: FakeCall, by: 'business' | 'user'): Promise<void> {
    if (call.terminatedBy) return;
    call.terminatedBy = by;
    await call.peer.close();
    const duration = call.acceptedAt ? Math.round((Date.now() - call.acceptedAt) / 1000) : 0;
    await this.post(
      this.callsChange([
        {
          id: call.id,
          ...(call.direction === 'USER_INITIATED'
            ? { ...user('from', call.to), to: BUSINESS_NUMBER }
            : { from: BUSINESS_NUMBER, ...user('to', call.to) }),
          event: 'terminate',
          direction: call.direction,
          timestamp: nowSeconds(),
          status: call.acceptedAt ? 'COMPLETED' : 'FAILED',
          ...(call.acceptedAt && { start_time: String(Math.floor(call.acceptedAt / 1000)), end_time: nowSeconds(), duration }),
        },
      ]),
    );
  }

  private statusChange(call: FakeCall, status: string): unknown {
    const recipient = isUserId(call.to) ? { recipient_user_id: call.to } : { recipient_id: call.to };
    return this.callsChange(undefined, [{ id: call.id, timestamp: nowSeconds(), type: 'call', status, ...recipient }]);
  }

  private callsChange(calls?: unknown[], statuses?: unknown[]): unknown {
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '555',
          changes: [
            {
              field: 'calls',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: BUSINESS_NUMBER, phone_number_id: this.phoneNumberId },
                ...(calls && { calls }),
                ...(statuses && { statuses }),
              },
            },
          ],
        },
      ],
    };
  }

  private async post(notification: unknown): Promise<void> {
    const status = await FakeCloudApi.notify(this.webhookUrl, this.appSecret, notification);
    if (status !== 200) throw new Error(`The app answered the calls webhook with ${status}`);
  }
}

/** The business number's display form in the fake's webhooks. */
const BUSINESS_NUMBER = '14155550901';
const nowSeconds = () => String(Math.floor(Date.now() / 1000));

const isUserId = (id: string) => /^[A-Z]{2}\.[A-Za-z0-9.]+$/.test(id);

/** The user's side of a call entry: `from`/`to` a number, or `from_user_id`/`to_user_id` alone for a user who shares none. */
function user(side: 'from' | 'to', id: string): Record<string, string> {
  return isUserId(id) ? { [`${side}_user_id`]: id } : { [side]: id };
}
