import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TtsVoice } from '../speech/tts-voice.js';
import type { AnalysisStatus, CriterionResult, Sentiment, TranscriptSegment } from '../call-intelligence/call-analysis.js';
import type { DialogState } from './dialog/dialog-state.js';
import type { IvrScript } from './dialog/ivr-script.js';
import {
  CallType,
  OutboundIvrAudioType,
  OutboundIvrResult,
  OutboundIvrStatus,
  type AnsweredBy,
  type MachineDetection,
} from './ivr-enums.js';

export interface StoredIvrOption {
  digit: string;
  description: string;
  responseMessageFileUrl: string | null;
}

export interface StoredIvrAnswer {
  stepId: string;
  prompt: string | null;
  digit: string;
  description: string;
  answeredAt: string;
}

/** One IVR call: what was asked for, and how the call went. Outbound, or a WhatsApp user's call answered with a flow. */
@Entity('outbound_ivr_requests')
@Index(['workspaceId', 'creationTime'])
@Index('ux_outbound_ivr_external_id', ['workspaceId', 'externalId'], { unique: true, where: 'external_id IS NOT NULL' })
@Index('ux_outbound_ivr_call_id', ['callId'], { unique: true, where: 'call_id IS NOT NULL' })
// Retention finds the recordings due for deletion without reading every call.
@Index('ix_outbound_ivr_recorded_at', ['recordedAt'], { where: 'recording_media_id IS NOT NULL' })
// Meta's limit on connected WhatsApp calls a day: a number's answered calls to one user since a time (countConnectedSince).
@Index('ix_outbound_ivr_connected', ['workspaceId', 'channelId', 'destinationNumber', 'answeredAt'], {
  where: 'answered_at IS NOT NULL AND direction = 2',
})
// The calls waiting for a WhatsApp user's call permission (a request joined, the user's answer, a request not sent).
@Index('ix_outbound_ivr_awaiting_permission', ['workspaceId', 'channelId', 'destinationNumber'], { where: 'awaiting_permission' })
export class OutboundIvrRequestEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') channelId: string;
  @Column({ type: 'varchar', length: 256, nullable: true }) externalId: string | null;
  /** The number called (E.164), or the WhatsApp user's BSUID when they share no number (API.md §15). */
  @Column({ type: 'varchar', length: 150 }) destinationNumber: string;
  @Column({ type: 'varchar', length: 2048, nullable: true }) audioFileUrl: string | null;
  @Column({ type: 'text', nullable: true }) ttsText: string | null;
  @Column({ type: 'smallint' }) ttsVoice: TtsVoice;
  @Column({ type: 'smallint', nullable: true }) audioType: OutboundIvrAudioType | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) welcomeMessageFileUrl: string | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) successMessageFileUrl: string | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) failedMessageFileUrl: string | null;
  @Column({ type: 'jsonb' }) options: StoredIvrOption[];
  /** Where the outcome webhook goes; null for a call a WhatsApp user placed (it has only the Call Webhook). */
  @Column({ type: 'varchar', length: 2048, nullable: true }) webhookUrl: string | null;
  /** Outbound (placed by Create Outbound IVR, a flow or a campaign), or Inbound (a WhatsApp user's call answered with a flow). */
  @Column({ type: 'smallint', default: CallType.Outbound }) direction: CallType;
  /** Meta's SDP offer of a WhatsApp user's call, which the worker answers. */
  @Column({ type: 'text', nullable: true }) offerSdp: string | null;
  @Column({ type: 'smallint' }) maxAudioRetries: number;
  @Column({ type: 'int' }) inputTimeoutMs: number;
  @Column({ type: 'int' }) digitTimeoutMs: number;
  @Column({ type: 'uuid', nullable: true }) flowId: string | null;
  @Column({ type: 'int', nullable: true }) flowVersion: number | null;
  /** What happens when a machine answers: Off (no detection), Hangup, or LeaveMessage (the voicemail after the beep). */
  @Column({ type: 'varchar', length: 20, default: 'Off' }) machineDetection: MachineDetection;
  @Column({ type: 'varchar', length: 2048, nullable: true }) voicemailAudioFileUrl: string | null;
  @Column({ type: 'text', nullable: true }) voicemailTtsText: string | null;
  /** Who answered, as the provider's detection reported it (Twilio's `AnsweredBy`); null without detection. */
  @Column({ type: 'varchar', length: 30, nullable: true }) answeredBy: AnsweredBy | null;
  /** Whether the call is recorded (the request's `record`, else the flow's, else the channel's `recordCalls`). */
  @Column({ type: 'boolean', default: false }) record: boolean;
  /** Played before the first prompt of a recorded call: an audio URL or text to speak (at most one). */
  @Column({ type: 'varchar', length: 2048, nullable: true }) recordingAnnouncementAudioUrl: string | null;
  @Column({ type: 'text', nullable: true }) recordingAnnouncementTtsText: string | null;
  /** The provider's id of the recording (Twilio's RecordingSid), once it reported one. */
  @Column({ type: 'varchar', length: 64, nullable: true }) recordingSid: string | null;
  /** The stored recording (media_files), its public URL and length; null until stored and after retention. */
  @Column({ type: 'uuid', nullable: true }) recordingMediaId: string | null;
  @Column({ type: 'varchar', length: 2048, nullable: true }) recordingUrl: string | null;
  @Column({ type: 'int', nullable: true }) recordingDurationMs: number | null;
  /** When the recording was stored: RECORDING_RETENTION counts from here. */
  @Column({ type: 'timestamptz', nullable: true }) recordedAt: Date | null;
  /** Why a recorded call has no recording (the provider had none, or fetching it failed for good). */
  @Column({ type: 'varchar', length: 1000, nullable: true }) recordingError: string | null;
  /**
   * A finished recorded call whose Call Webhook waits for its recording (at most
   * CALL_INTELLIGENCE_WAIT): set when the call ends without one, cleared when the webhook is written.
   */
  @Column({ type: 'boolean', default: false }) callWebhookWaiting: boolean;
  /**
   * The analysis of the recording (API.md §16): Pending once the recording is stored and the
   * workspace has a transcription provider, then Completed or Failed (`analysisError`); null: none asked.
   */
  @Column({ type: 'varchar', length: 20, nullable: true }) analysisStatus: AnalysisStatus | null;
  @Column({ type: 'varchar', length: 1000, nullable: true }) analysisError: string | null;
  @Column({ type: 'jsonb', nullable: true }) transcript: TranscriptSegment[] | null;
  @Column({ type: 'text', nullable: true }) summary: string | null;
  @Column({ type: 'varchar', length: 10, nullable: true }) sentiment: Sentiment | null;
  @Column({ type: 'jsonb', nullable: true }) evaluationCriteriaResult: CriterionResult[] | null;
  @Column({ type: 'timestamptz', nullable: true }) analysedAt: Date | null;

  @Column({ type: 'smallint', default: OutboundIvrStatus.Pending }) status: OutboundIvrStatus;
  @Column({ type: 'smallint', default: OutboundIvrResult.None }) result: OutboundIvrResult;
  @Column({ type: 'varchar', length: 1, nullable: true }) pressedDigit: string | null;
  @Column({ type: 'timestamptz', nullable: true }) initiatedAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) ringingAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) answeredAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) completedAt: Date | null;
  @Column({ type: 'int', nullable: true }) callDurationSeconds: number | null;
  /** The voice provider's id of the call (Twilio CallSid, or the sandbox's). */
  @Column({ type: 'varchar', length: 100, nullable: true }) callId: string | null;
  @Column({ type: 'varchar', length: 1000, nullable: true }) errorMessage: string | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) hangupCause: string | null;
  @Column({ type: 'jsonb', default: () => "'[]'" }) answers: StoredIvrAnswer[];
  /** Set just before the provider is asked to call: a retried job never places a second call. */
  @Column({ type: 'timestamptz', nullable: true }) placementStartedAt: Date | null;
  /** What the call plays and asks, fixed when the call is placed (a flow's version, speech synthesized). */
  @Column({ type: 'jsonb', nullable: true }) script: IvrScript | null;
  /** Where the conversation with the callee stands (the dialog engine's state). */
  @Column({ type: 'jsonb', nullable: true }) dialog: DialogState | null;
  /**
   * A WhatsApp call waiting for the user's call permission (API.md §15): the request was sent, and
   * the call is placed when they accept, or ends Failed when they decline or `permissionDeadline` passes.
   */
  @Column({ type: 'boolean', default: false }) awaitingPermission: boolean;
  @Column({ type: 'timestamptz', nullable: true }) permissionDeadline: Date | null;
  /** The approved template with a call permission button sent outside the service window. */
  @Column({ type: 'jsonb', nullable: true }) permissionTemplate: { name: string; language: string } | null;
  /** The interactive permission request's text inside the service window; null: the default. */
  @Column({ type: 'varchar', length: 1024, nullable: true }) permissionRequestText: string | null;
  /** When a call held by quiet hours or `sendAt` is due to be placed; null: placed at once. */
  @Column({ type: 'timestamptz', nullable: true }) scheduledFor: Date | null;
  @Column({ type: 'timestamptz' }) creationTime: Date;
}
