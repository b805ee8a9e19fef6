import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { AppConfig } from '../../config/app-config.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';
import type { CallProgress } from '../call-progress.js';
import { twilioProgress } from './twilio-status.js';
import {
  VoiceProviderAmbiguous,
  VoiceProviderRefused,
  VoiceProviderUnavailable,
  type CallSession,
  type VoiceProvider,
} from './voice-provider.js';

const REQUEST_TIMEOUT_MS = 15_000;
/** Connection errors that mean the request never left. */
const NOTHING_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Seconds the destination may ring before the provider reports no-answer. */
const RING_TIMEOUT_SECONDS = 30;

/** Our callback URLs for one call; the TwiML and status callbacks of {@link TwilioCallbacksController}. */
export function twilioCallUrls(publicBaseUrl: string, requestId: string) {
  const base = `${publicBaseUrl}/v1/voice/twilio/calls/${requestId}`;
  return { answer: `${base}/answer`, gather: `${base}/gather`, status: `${base}/status` };
}

/**
 * Any Twilio-compatible voice API (Twilio, SignalWire, Telnyx TeXML) at TWILIO_API_URL, with the
 * channel's account SID and auth token. The call itself is driven by the provider's callbacks.
 */
@Injectable()
export class TwilioVoiceProvider implements VoiceProvider {
  constructor(
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
  ) {}

  async call(channel: Channel, request: OutboundIvrRequestEntity, session: CallSession): Promise<void> {
    const urls = twilioCallUrls(this.config.http.publicBaseUrl, request.id);
    const form = new URLSearchParams({
      To: request.destinationNumber,
      From: channel.voiceFromNumber ?? channel.phoneNumber,
      Url: urls.answer,
      Method: 'POST',
      StatusCallback: urls.status,
      StatusCallbackMethod: 'POST',
      Timeout: String(RING_TIMEOUT_SECONDS),
    });
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    // Synchronous detection (no AsyncAmd): Twilio asks the answer URL only once it knows who
    // answered, with `AnsweredBy`. LeaveMessage waits for the end of the greeting (the beep).
    if (request.machineDetection !== 'Off')
      form.set('MachineDetection', request.machineDetection === 'LeaveMessage' ? 'DetectMessageEnd' : 'Enable');
    const body = await this.send(channel, 'Calls.json', form);
    const sid = typeof body.sid === 'string' ? body.sid : null;
    if (!sid) throw new VoiceProviderAmbiguous('The voice provider accepted the call without a call sid');
    await session.progress({ kind: 'initiated', at: new Date(), callId: sid });
  }

  async hangUp(channel: Channel, callId: string): Promise<void> {
    await this.send(channel, `Calls/${encodeURIComponent(callId)}.json`, new URLSearchParams({ Status: 'completed' }));
  }

  async finalReport(channel: Channel, callId: string): Promise<CallProgress | null> {
    const call = await this.send(channel, `Calls/${encodeURIComponent(callId)}.json`);
    const progress = twilioProgress({
      CallSid: callId,
      CallStatus: String(call.status ?? ''),
      ...(call.duration != null && { CallDuration: String(call.duration) }),
      ...(typeof call.end_time === 'string' && { Timestamp: call.end_time }),
    });
    return progress?.kind === 'ended' ? progress : null;
  }

  /** POSTs `form`, or GETs without one. */
  private async send(channel: Channel, path: string, form?: URLSearchParams): Promise<Record<string, unknown>> {
    const accountSid = channel.voiceAccountSid ?? '';
    const { authToken } = this.channels.voiceCredentials(channel);
    const url = `${this.config.voice.twilioApiUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: form ? 'POST' : 'GET',
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken ?? ''}`).toString('base64')}`,
          ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
          accept: 'application/json',
        },
        body: form,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      const code = ((err as Error).cause as { code?: string } | undefined)?.code ?? '';
      const reason = `The voice provider could not be reached (${code || (err as Error).message})`;
      // Refused connections and failed lookups sent nothing; a timeout or a reset may have.
      throw NOTHING_SENT.has(code) ? new VoiceProviderUnavailable(reason) : new VoiceProviderAmbiguous(reason);
    }
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok) return body;
    const detail = `${response.status}${body.code ? ` (code ${String(body.code)})` : ''}: ${String(body.message ?? response.statusText)}`;
    if (response.status === 429 || response.status === 503) throw new VoiceProviderUnavailable(`The voice provider answered ${detail}`);
    if (response.status >= 500) throw new VoiceProviderAmbiguous(`The voice provider answered ${detail}`);
    throw new VoiceProviderRefused(`The voice provider refused the call: ${detail}`, `PROVIDER_${response.status}`);
  }
}
