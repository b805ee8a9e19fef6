import { ApiProperty, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, MaxLength } from 'class-validator';
import { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import { IntEnumProperty, IsIntEnum } from '../../openapi/int-enum.js';
import { TtsVoice } from '../../speech/tts-voice.js';
import {
  ANSWERED_BY,
  CallType,
  MACHINE_DETECTION,
  OutboundIvrAudioType,
  OutboundIvrResult,
  OutboundIvrStatus,
  type AnsweredBy,
  type MachineDetection,
} from '../ivr-enums.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';

/** A selectable digit as the record shows it. */
export class OutboundIvrRecordOption {
  digit: string;
  description: string;
}

/** One question answered during a flow call. */
export class OutboundIvrAnswer {
  stepId: string;
  /** The question's text, or its audio URL. */
  prompt: string | null;
  digit: string;
  description: string;
  /** ISO 8601 with time-zone offset. */
  answeredAt: string;
}

/** The Outbound IVR request record (the specification's shape, plus answers, callDurationSeconds and flowId). */
export class OutboundIvrRequest {
  id: string;
  workspaceId: string;
  channelId: string;
  externalId: string | null;
  /**
   * Number called, with leading + (for an inbound call, the caller); a WhatsApp user who shares no
   * number is named by their BSUID (e.g. US.13491208655302741918).
   */
  destinationNumber: string;
  /** Audio played; for speech, the synthesized file once it exists. */
  audioFileUrl: string | null;
  ttsText: string | null;
  @IntEnumProperty(TtsVoice, 'TtsVoice') ttsVoice: TtsVoice;
  @IntEnumProperty(OutboundIvrAudioType, 'OutboundIvrAudioType', { nullable: true }) audioType: OutboundIvrAudioType | null;
  @ApiProperty({ type: [OutboundIvrRecordOption] }) options: OutboundIvrRecordOption[];
  /** Where the outcome webhook goes; null for a call a WhatsApp user placed (direction 1: it has only the Call Webhook). */
  @ApiProperty({ type: String, nullable: true, example: 'https://example.com/webhooks/ivr' }) webhookUrl: string | null;
  /**
   * 2 Outbound: a call this service placed. 1 Inbound: a WhatsApp user's call answered with the
   * channel's inbound or after-hours flow (API.md §15); `destinationNumber` is then the caller.
   */
  @IntEnumProperty(CallType, 'CallType') direction: CallType;
  maxAudioRetries: number;
  inputTimeoutMs: number;
  digitTimeoutMs: number;
  @IntEnumProperty(OutboundIvrStatus, 'OutboundIvrStatus') status: OutboundIvrStatus;
  @IntEnumProperty(OutboundIvrResult, 'OutboundIvrResult') result: OutboundIvrResult;
  pressedDigit: string | null;
  /** ISO 8601 with time-zone offset. */
  initiatedAt: string | null;
  ringingAt: string | null;
  answeredAt: string | null;
  completedAt: string | null;
  /** The voice provider's call id. */
  callId: string | null;
  errorMessage: string | null;
  hangupCause: string | null;
  /** ISO 8601 with time-zone offset. */
  creationTime: string;
  @ApiProperty({ type: [OutboundIvrAnswer] }) answers: OutboundIvrAnswer[];
  callDurationSeconds: number | null;
  flowId: string | null;
  /** When a call held by `sendAt` or the contact's quiet hours is due to be placed (ISO 8601 with offset); null: placed at once. */
  @ApiProperty({ type: String, nullable: true, example: '2026-03-01T09:00:00.000+00:00' }) scheduledFor: string | null;
  @ApiProperty({ enum: MACHINE_DETECTION, enumName: 'MachineDetection' }) machineDetection: MachineDetection;
  voicemailAudioFileUrl: string | null;
  voicemailTtsText: string | null;
  /** Who answered, as the voice provider's machine detection said (Twilio's AnsweredBy); null without detection or before an answer. */
  @ApiProperty({ enum: ANSWERED_BY, enumName: 'AnsweredBy', nullable: true }) answeredBy: AnsweredBy | null;
  /** Whether the call is recorded (API.md §16). */
  record: boolean;
  recordingAnnouncementAudioUrl: string | null;
  recordingAnnouncementTtsText: string | null;
  /**
   * The stored recording (WAV), an absolute unguessable URL served without a token; null when the
   * call is not recorded, until the recording is stored, and after RECORDING_RETENTION.
   */
  @ApiProperty({ type: String, nullable: true, example: 'https://api.example.com/media/q3Zx0c2lD9Vb7Fw1aKp4mN8sT6yR5uE0/recording.wav' })
  recordingUrl: string | null;
  /** The recording's length in milliseconds. */
  @ApiProperty({ type: Number, nullable: true, example: 42000 }) recordingDurationMs: number | null;
  /**
   * A WhatsApp call waiting for the user's call permission (API.md §15): the request was sent; the
   * call is placed when they accept, and ends Failed (PermissionDenied, or NoPermission at `permissionDeadline`) otherwise.
   */
  awaitingPermission: boolean;
  @ApiProperty({ type: String, nullable: true, example: '2026-03-01T10:00:00.000+00:00' }) permissionDeadline: string | null;
  /** Why a recorded call has no recording (the provider had none, or it could not be fetched); null otherwise. */
  @ApiProperty({ type: String, nullable: true }) recordingError: string | null;
}

const WEBHOOK_FIELDS = [
  'id',
  'externalId',
  'workspaceId',
  'channelId',
  'destinationNumber',
  'status',
  'result',
  'pressedDigit',
  'initiatedAt',
  'ringingAt',
  'answeredAt',
  'completedAt',
  'callDurationSeconds',
  'callId',
  'errorMessage',
  'hangupCause',
  'creationTime',
  'answers',
  'answeredBy',
  'recordingUrl',
] as const satisfies ReadonlyArray<keyof OutboundIvrRequest>;

/** Sent to the request's webhookUrl when the call ends (`outbound_ivr.completed`): the record's outcome fields. */
export class OutboundIvrWebhookPayload extends PickType(OutboundIvrRequest, WEBHOOK_FIELDS) {}

export class ListOutboundIvrQueryDto extends PagedRequestDto {
  @IsOptionalNotNull()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value))
  @IntEnumProperty(OutboundIvrStatus, 'OutboundIvrStatus', { required: false })
  @IsIntEnum(OutboundIvrStatus)
  status?: OutboundIvrStatus;
  @IsOptionalNotNull() @IsString() @MaxLength(256) externalId?: string;
}

const at = (d: Date | null) => formatTimestamp(d, TimestampFormat.withOffset);

export function toOutboundIvrRequest(r: OutboundIvrRequestEntity): OutboundIvrRequest {
  return {
    id: r.id,
    workspaceId: r.workspaceId,
    channelId: r.channelId,
    externalId: r.externalId,
    destinationNumber: r.destinationNumber,
    audioFileUrl: r.audioFileUrl,
    ttsText: r.ttsText,
    ttsVoice: r.ttsVoice,
    audioType: r.audioType,
    options: r.options.map((o) => ({ digit: o.digit, description: o.description })),
    webhookUrl: r.webhookUrl,
    direction: r.direction,
    maxAudioRetries: r.maxAudioRetries,
    inputTimeoutMs: r.inputTimeoutMs,
    digitTimeoutMs: r.digitTimeoutMs,
    status: r.status,
    result: r.result,
    pressedDigit: r.pressedDigit,
    initiatedAt: at(r.initiatedAt),
    ringingAt: at(r.ringingAt),
    answeredAt: at(r.answeredAt),
    completedAt: at(r.completedAt),
    callId: r.callId,
    errorMessage: r.errorMessage,
    hangupCause: r.hangupCause,
    creationTime: TimestampFormat.withOffset(r.creationTime),
    answers: r.answers.map(toAnswer),
    callDurationSeconds: r.callDurationSeconds,
    flowId: r.flowId,
    scheduledFor: at(r.scheduledFor),
    machineDetection: r.machineDetection,
    voicemailAudioFileUrl: r.voicemailAudioFileUrl,
    voicemailTtsText: r.voicemailTtsText,
    answeredBy: r.answeredBy,
    record: r.record,
    recordingAnnouncementAudioUrl: r.recordingAnnouncementAudioUrl,
    recordingAnnouncementTtsText: r.recordingAnnouncementTtsText,
    recordingUrl: r.recordingUrl,
    recordingDurationMs: r.recordingDurationMs,
    recordingError: r.recordingError,
    awaitingPermission: r.awaitingPermission,
    permissionDeadline: at(r.permissionDeadline),
  };
}

export function toWebhookPayload(r: OutboundIvrRequestEntity): OutboundIvrWebhookPayload {
  const record = toOutboundIvrRequest(r);
  return Object.fromEntries(WEBHOOK_FIELDS.map((field) => [field, record[field]])) as unknown as OutboundIvrWebhookPayload;
}

function toAnswer(a: OutboundIvrRequestEntity['answers'][number]): OutboundIvrAnswer {
  return { ...a, answeredAt: TimestampFormat.withOffset(new Date(a.answeredAt)) };
}
