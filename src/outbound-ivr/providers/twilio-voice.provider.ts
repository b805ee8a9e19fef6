import { createWriteStream } from 'node:fs';
import { type ClientRequest, get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import { collectingYoungGarbage } from '../../common/memory/young-garbage.js';
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
  return { answer: `${base}/answer`, gather: `${base}/gather`, status: `${base}/status`, recording: `${base}/recording` };
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
    // Twilio records the whole call, each party on its own channel, and reports the finished file
    // (or that there is none) to our recording callback; the worker then fetches it.
    if (request.record) {
      form.set('Record', 'true');
      form.set('RecordingChannels', 'dual');
      form.set('RecordingStatusCallback', urls.recording);
      form.set('RecordingStatusCallbackMethod', 'POST');
      form.set('RecordingStatusCallbackEvent', 'completed absent');
    }
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

  /**
   * Streams a recording's WAV (Twilio's `.wav` representation of the Recordings resource) into
   * `target`, never holding more than a chunk of it. A recording Twilio does not have (404) is
   * {@link RecordingNotFound}; other failures are {@link VoiceProviderUnavailable} (worth a retry)
   * or {@link VoiceProviderRefused}.
   */
  async downloadRecording(channel: Channel, recordingSid: string, target: string): Promise<void> {
    const { url, authorization } = this.endpoint(channel, `Recordings/${encodeURIComponent(recordingSid)}.wav`);
    let response = await getStream(url, { authorization, accept: 'audio/x-wav' });
    // Twilio answers the media with a redirect to a signed URL of its storage: followed without our
    // credentials (the URL carries its own; they are not for another host either).
    for (let hops = 0; REDIRECTS.has(response.statusCode ?? 0) && response.headers.location && hops < MAX_REDIRECTS; hops++) {
      response.resume();
      response = await getStream(new URL(response.headers.location, url).toString(), { accept: 'audio/x-wav' });
    }
    if (response.statusCode !== 200) {
      const text = (await response.toArray()).map((chunk: Buffer) => chunk.toString()).join('');
      throw await this.failure(new Response(text, { status: response.statusCode ?? 502 }), 'refused the recording');
    }
    await pipeline(response, collectingYoungGarbage(), createWriteStream(target)).catch((err: Error) => {
      throw new VoiceProviderUnavailable(`The recording's download broke off (${err.message})`);
    });
  }

  /** Deletes a recording at Twilio (204); one already gone (404) is done too. */
  async deleteRecording(channel: Channel, recordingSid: string): Promise<void> {
    const response = await this.request(channel, `Recordings/${encodeURIComponent(recordingSid)}.json`, 'DELETE');
    await response.body?.cancel();
    if (response.ok || response.status === 404) return;
    throw await this.failure(response, 'refused to delete the recording');
  }

  /** POSTs `form`, or GETs without one. */
  private async send(channel: Channel, path: string, form?: URLSearchParams): Promise<Record<string, unknown>> {
    const response = await this.request(channel, path, form ? 'POST' : 'GET', form);
    if (!response.ok) throw await this.failure(response, 'refused the call');
    return (await response.json().catch(() => ({}))) as Record<string, unknown>;
  }

  /** The URL of a resource of the channel's account, and the Basic authorization for it. */
  private endpoint(channel: Channel, path: string): { url: string; authorization: string } {
    const accountSid = channel.voiceAccountSid ?? '';
    const { authToken } = this.channels.voiceCredentials(channel);
    return {
      url: `${this.config.voice.twilioApiUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/${path}`,
      authorization: `Basic ${Buffer.from(`${accountSid}:${authToken ?? ''}`).toString('base64')}`,
    };
  }

  private async request(channel: Channel, path: string, method: string, form?: URLSearchParams): Promise<Response> {
    const { url, authorization } = this.endpoint(channel, path);
    try {
      return await fetch(url, {
        method,
        headers: {
          authorization,
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
  }

  /** The error for a non-2xx answer, from Twilio's error body `{ code, message, more_info, status }`. */
  private async failure(response: Response, what: string): Promise<Error> {
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    const detail = `${response.status}${body.code ? ` (code ${String(body.code)})` : ''}: ${String(body.message ?? response.statusText)}`;
    if (response.status === 404 && what.includes('recording'))
      return new RecordingNotFound(`The voice provider has no such recording: ${detail}`);
    if (response.status === 429 || response.status === 503) return new VoiceProviderUnavailable(`The voice provider answered ${detail}`);
    if (response.status >= 500) return new VoiceProviderAmbiguous(`The voice provider answered ${detail}`);
    return new VoiceProviderRefused(`The voice provider ${what}: ${detail}`, `PROVIDER_${response.status}`);
  }
}

/** The provider has no recording by that id (deleted, or never made). */
export class RecordingNotFound extends Error {}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 3;

/**
 * A GET whose body is left as a stream. node:http rather than fetch: its stream hands each socket
 * chunk straight to the file with backpressure (fetch's web stream measured 35 MB of RSS growth for
 * a 10-minute WAV). A connection failure is {@link VoiceProviderUnavailable}.
 */
function getStream(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise<IncomingMessage>((resolve, reject) => {
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    get(url, { headers, timeout: REQUEST_TIMEOUT_MS }, resolve)
      .on('timeout', function (this: ClientRequest) {
        this.destroy(new Error('timed out'));
      })
      .on('error', (err) => reject(new VoiceProviderUnavailable(`The voice provider could not be reached (${err.message})`)));
  });
}
