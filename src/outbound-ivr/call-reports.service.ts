import { Injectable } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { isWhatsAppUserId } from '../common/phone/whatsapp-user-id.js';
import { formatTimestamp, TimestampFormat } from '../common/time/timestamp-format.js';
import { ContactIdentity } from '../contacts/contact-identity.service.js';
import { EventDirection, EventSourceType } from '../conversations/conversation-enums.js';
import { ConversationsService } from '../conversations/conversations.service.js';
import { TimelineService } from '../conversations/timeline.service.js';
import { WebhookKind } from '../webhooks/webhook-kind.js';
import { WebhookPublisher, type WebhookEvent } from '../webhooks/webhook-publisher.js';
import { CallType, CallWebhookStatus } from './ivr-enums.js';

/** A finished call, inbound or outbound, as the timeline and the Call Webhook describe it. */
export interface CallReport {
  workspaceId: string;
  channelId: string;
  callId: string;
  type: CallType;
  status: CallWebhookStatus;
  /** The other party: the callee of an outbound call, the caller of an inbound one (a BSUID for a WhatsApp user who shares no number). */
  contactNumber: string;
  pickupTime: Date | null;
  hangupTime: Date;
  durationSeconds: number;
  creationTime: Date;
  /** One line for the timeline. */
  summary: string;
  /** What the timeline event links to (the IVR request, or the inbound call). */
  sourceId: string;
  details: Record<string, unknown>;
  /** Who answered an outbound call, as the provider's machine detection said (null without detection, and for inbound calls). */
  answeredBy?: string | null;
  /** The stored recording's public URL, when the call was recorded and it is stored. */
  recordingUrl?: string | null;
  /** A WhatsApp call on a channel that also has a phone line (a user's call to its WhatsApp number). */
  overWhatsApp?: boolean;
  /** The recording's analysis (API.md §16), once it is done; the Call Webhook's text fields. */
  analysis?: CallAnalysisText | null;
}

/** A call's analysis as the Call Webhook and the timeline carry it: text. */
export interface CallAnalysisText {
  transcription: string | null;
  summary: string | null;
  sentiment: string | null;
  /** The criteria's results as JSON text (`[{ name, passed, reason }]`). */
  evaluationCriteriaResult: string | null;
}

/** `hh:mm:ss` of a number of seconds. */
export function callLength(seconds: number): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(seconds / 3600))}:${two(Math.floor((seconds % 3600) / 60))}:${two(seconds % 60)}`;
}

/**
 * Writes what a finished call leaves behind, in the caller's transaction: a Call event in the
 * contact's conversation (contact and conversation created if needed) and the Call Webhook to the
 * channel's postCallWebhookUrl, plus any `extraEvents` (the IVR outcome webhook). The webhooks'
 * jobs are pushed when that transaction commits.
 */
@Injectable()
export class CallReportsService {
  constructor(
    private readonly channels: ChannelsService,
    private readonly identities: ContactIdentity,
    private readonly conversations: ConversationsService,
    private readonly timeline: TimelineService,
    private readonly webhooks: WebhookPublisher,
  ) {}

  /**
   * The timeline event, the Call Webhook (unless `withCallWebhook` is false: a recorded call's
   * waits for its recording, {@link sendCallWebhook}) and `extraEvents`.
   */
  async record(report: CallReport, extraEvents: WebhookEvent[] = [], withCallWebhook = true): Promise<void> {
    const events = [...extraEvents];
    // A channel deleted mid-call keeps its calls' outcomes but gets no timeline or Call Webhook.
    const channel = await this.channels.getRecent(report.workspaceId, report.channelId, undefined).catch(() => null);
    if (channel) {
      const contactId = await this.contactIdOf(report);
      const conversation = await this.conversations.findOrOpenRef(report.workspaceId, channel.id, contactId);
      await this.timeline.record(conversation, {
        sourceType: EventSourceType.Call,
        direction: report.type === CallType.Inbound ? EventDirection.Inbound : EventDirection.Outbound,
        sourceId: report.sourceId,
        status: CallWebhookStatus[report.status],
        body: report.summary,
        durationOrSize: callLength(report.durationSeconds),
        attachment: { callId: report.callId, ...report.details, ...(report.recordingUrl && { recordingUrl: report.recordingUrl }) },
        creationTime: report.hangupTime,
      });
      if (withCallWebhook) events.push(this.callWebhook(report, channel, contactId));
    }
    await this.webhooks.publish(events);
  }

  /**
   * The Call Webhook of a call recorded earlier by {@link record} without it, now that its
   * recording is stored (or the wait for it is over); the timeline's Call event learns the recording too.
   */
  async sendCallWebhook(report: CallReport): Promise<void> {
    const channel = await this.channels.getRecent(report.workspaceId, report.channelId, undefined).catch(() => null);
    if (!channel) return;
    await this.annotateRecording(report);
    await this.webhooks.publish([this.callWebhook(report, channel, await this.contactIdOf(report))]);
  }

  /** The timeline's Call event, written by {@link record} before the recording was stored, learns its URL. */
  async annotateRecording(report: CallReport): Promise<void> {
    if (report.recordingUrl)
      await this.timeline.annotate(report.workspaceId, EventSourceType.Call, report.sourceId, { recordingUrl: report.recordingUrl });
  }

  /** The call's timeline event learns its analysis (`aiSummary`: the summary and the transcript's text). */
  async recordAnalysis(report: CallReport): Promise<void> {
    if (!report.analysis) return;
    const { summary, transcription } = report.analysis;
    await this.timeline.setAiSummary(report.workspaceId, EventSourceType.Call, report.sourceId, { summary, transcription });
  }

  /** The call's contact: by number, or by BSUID for a WhatsApp user who shares none (API.md §15); made when there is none. */
  private async contactIdOf(report: CallReport): Promise<string> {
    const actor = { workspaceId: report.workspaceId, serviceAccountId: null };
    if (isWhatsAppUserId(report.contactNumber)) return (await this.identities.findOrCreateByWhatsAppUserId(actor, report.contactNumber)).id;
    return this.identities.idByPhone(actor, report.contactNumber);
  }

  /** To the channel's Call Webhook URL and the endpoints that take it (written only where one exists). */
  private callWebhook(report: CallReport, channel: Channel, contactId: string): WebhookEvent {
    const ownNumber = channel.voiceFromNumber ?? channel.phoneNumber;
    const inbound = report.type === CallType.Inbound;
    return {
      workspaceId: report.workspaceId,
      kind: WebhookKind.Call,
      targetUrl: channel.postCallWebhookUrl ?? null,
      payload: {
        callId: report.callId,
        workspaceId: report.workspaceId,
        channelId: channel.id,
        status: report.status,
        type: report.type,
        // Which network carried the call: a phone line, or a WhatsApp call (API.md §15).
        channelKind: channel.hasVoice && !report.overWhatsApp ? 'Phone' : 'WhatsApp',
        callerNumber: inbound ? report.contactNumber : ownNumber,
        calleeNumber: inbound ? ownNumber : report.contactNumber,
        pickupTime: formatTimestamp(report.pickupTime, TimestampFormat.utc),
        hangupTime: TimestampFormat.utc(report.hangupTime),
        userId: null,
        userName: null,
        contactId,
        contactNumber: report.contactNumber,
        callLength: callLength(report.durationSeconds),
        answeredBy: report.answeredBy ?? null,
        aiAgentId: null,
        recordingUrl: report.recordingUrl ?? null,
        transcription: report.analysis?.transcription ?? null,
        summary: report.analysis?.summary ?? null,
        sentiment: report.analysis?.sentiment ?? null,
        evaluationCriteriaResult: report.analysis?.evaluationCriteriaResult ?? null,
        creationTime: TimestampFormat.utc(report.creationTime),
      },
    };
  }
}
