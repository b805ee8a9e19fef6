import { Injectable } from '@nestjs/common';
import { validateRequest } from 'twilio/lib/webhooks/webhooks.js';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { ChannelNotFound } from '../channels/channels.errors.js';
import { newId } from '../common/id.js';
import { toE164 } from '../common/phone/phone-number.js';
import { AppConfig } from '../config/app-config.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import type { CallEnding } from './call-progress.js';
import { TWILIO_ENDINGS, twilioProgress, twilioTimestamp, type TwilioParams } from './providers/twilio-status.js';
import { CallReportsService } from './call-reports.service.js';
import { CallTracker, type CallRef } from './call-tracker.service.js';
import type { InboundCall } from './inbound-call.entity.js';
import { InboundCallsRepository } from './inbound-calls.repository.js';
import { CallType, CallWebhookStatus, toAnsweredBy } from './ivr-enums.js';
import { OutboundIvrRequestsRepository } from './outbound-ivr-requests.repository.js';
import { InvalidTwilioSignature, OutboundIvrNotFound } from './outbound-ivr.errors.js';
import { renderGreeting, renderInstructions } from './providers/twiml.js';
import { twilioCallUrls } from './providers/twilio-voice.provider.js';
import { inTransaction } from '../database/transactions.js';

export interface SignedCallback {
  /** Path and query as requested; with PUBLIC_BASE_URL, the URL the provider signed. */
  path: string;
  params: TwilioParams;
  signature: string | string[] | undefined;
}

/** Twilio's recording SIDs: RE and 32 hex digits (compatible providers may use other letters and lengths). */
const RECORDING_SID = /^[A-Za-z0-9_-]{1,64}$/;

const INBOUND_STATUS: Record<CallEnding, CallWebhookStatus> = {
  completed: CallWebhookStatus.Completed,
  busy: CallWebhookStatus.Missed,
  'no-answer': CallWebhookStatus.Missed,
  canceled: CallWebhookStatus.Missed,
  failed: CallWebhookStatus.Failed,
};

/** Twilio-compatible callbacks: checks each signature with the channel's auth token, then drives the call. */
@Injectable()
export class TwilioCallbacksService {
  constructor(
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly inboundCalls: InboundCallsRepository,
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
    private readonly tracker: CallTracker,
    private readonly reports: CallReportsService,
    private readonly outbox: Outbox,
  ) {}

  async answer(id: string, callback: SignedCallback): Promise<string> {
    const ref = await this.verifiedCall(id, callback);
    const answeredBy = toAnsweredBy(callback.params.AnsweredBy);
    const instructions = await this.tracker.converse(ref, { kind: 'answered', answeredBy });
    return renderInstructions(instructions, twilioCallUrls(this.config.http.publicBaseUrl, id).gather);
  }

  async gather(id: string, turn: number, callback: SignedCallback): Promise<string> {
    const ref = await this.verifiedCall(id, callback);
    const digit = callback.params.Digits?.slice(0, 1);
    const input = digit ? ({ kind: 'digit', digit } as const) : ({ kind: 'silence' } as const);
    const instructions = await this.tracker.converse(ref, input, Number.isInteger(turn) ? turn : undefined);
    return renderInstructions(instructions, twilioCallUrls(this.config.http.publicBaseUrl, id).gather);
  }

  async status(id: string, callback: SignedCallback): Promise<void> {
    const ref = await this.verifiedCall(id, callback);
    const progress = twilioProgress(callback.params);
    if (progress) await this.tracker.progress(ref, progress);
  }

  /**
   * A finished recording is fetched by a job (retried on the provider's errors), so this answers
   * at once; `absent` (too short, silent) or `failed` leaves the call without one, saying why.
   */
  async recording(id: string, callback: SignedCallback): Promise<void> {
    const ref = await this.verifiedCall(id, callback);
    const { RecordingSid: recordingSid, RecordingStatus: status, ErrorCode: errorCode } = callback.params;
    if (status === 'completed' && recordingSid && RECORDING_SID.test(recordingSid)) {
      await this.outbox.enqueue([
        { jobName: JobName.DownloadCallRecording, workspaceId: ref.workspaceId, payload: { requestId: ref.id, recordingSid } },
      ]);
      return;
    }
    if (status === 'absent' || status === 'failed')
      await this.tracker.recordingSettled(ref, {
        error: `The voice provider made no recording (${status}${errorCode ? `, error ${errorCode}` : ''}).`,
      });
  }

  async inbound(channelId: string, callback: SignedCallback): Promise<string> {
    await this.verifiedChannel(channelId, callback);
    return renderGreeting(this.config.voice.inboundGreeting);
  }

  /** A finished inbound call becomes a call record, a timeline event and a Call Webhook, once. */
  async inboundStatus(channelId: string, callback: SignedCallback): Promise<void> {
    const channel = await this.verifiedChannel(channelId, callback);
    const { params } = callback;
    const ending = TWILIO_ENDINGS[params.CallStatus];
    const caller = toE164(params.From ?? '');
    if (!ending || !params.CallSid || !caller) return; // still ringing or talking, or an anonymous caller
    const hangupTime = twilioTimestamp(params);
    const durationSeconds = Number(params.CallDuration) || 0;
    const status = INBOUND_STATUS[ending];
    const call: InboundCall = {
      id: newId(),
      workspaceId: channel.workspaceId,
      channelId: channel.id,
      providerCallId: params.CallSid,
      callerNumber: caller,
      status,
      durationSeconds,
      pickupTime: status === CallWebhookStatus.Completed ? new Date(hangupTime.getTime() - durationSeconds * 1000) : null,
      hangupTime,
      creationTime: new Date(),
    };
    await inTransaction(async () => {
      if (!(await this.inboundCalls.insertIgnoring(channel.workspaceId, call))) return; // reported before
      await this.reports.record({
        workspaceId: channel.workspaceId,
        channelId: channel.id,
        callId: call.providerCallId,
        type: CallType.Inbound,
        status,
        contactNumber: caller,
        pickupTime: call.pickupTime,
        hangupTime,
        durationSeconds,
        creationTime: call.creationTime,
        summary: `Inbound call: ${CallWebhookStatus[status]}`,
        sourceId: call.id,
        details: { inboundCallId: call.id },
      });
    });
  }

  /** Provider callbacks carry no token: the record is found by id alone, and the signature authenticates. */
  private async verifiedCall(id: string, callback: SignedCallback): Promise<CallRef> {
    const record = await this.requests.findUnscopedForProviderCallback(id);
    if (!record) throw OutboundIvrNotFound(id);
    // A channel deleted mid-call still authenticates its calls' callbacks, so they can finish.
    const channel = await this.channels.getIncludingDeleted(record.workspaceId, record.channelId);
    if (channel?.voiceProvider !== 'twilio') throw OutboundIvrNotFound(id);
    this.verify(channel, callback);
    return { id: record.id, workspaceId: record.workspaceId };
  }

  private async verifiedChannel(channelId: string, callback: SignedCallback): Promise<Channel> {
    const channel = await this.channels.findUnscopedForProviderCallback(channelId);
    if (channel.voiceProvider !== 'twilio') throw ChannelNotFound(channelId);
    this.verify(channel, callback);
    return channel;
  }

  private verify(channel: Channel, { path, params, signature }: SignedCallback): void {
    const { authToken } = this.channels.voiceCredentials(channel);
    const url = `${this.config.http.publicBaseUrl}${path}`;
    if (!authToken || typeof signature !== 'string' || !validateRequest(authToken, signature, url, params)) {
      throw InvalidTwilioSignature();
    }
  }
}
