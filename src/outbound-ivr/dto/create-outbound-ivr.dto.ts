import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsBoolean,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { PhoneNumberOrWhatsAppUserIdField } from '../../common/phone/whatsapp-user-id.js';
import { TtsVoice, TtsVoiceField } from '../../speech/tts-voice.js';
import { HTTP_URL, OutboundIvrOption, UniqueDigits } from './ivr-option.dto.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { IsIsoDateTime } from '../../common/time/iso-date-time.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { MACHINE_DETECTION, type MachineDetection } from '../ivr-enums.js';

export const IVR_DEFAULTS = {
  maxAudioRetries: 2,
  inputTimeoutMs: 6000,
  digitTimeoutMs: 3000,
  ttsVoice: TtsVoice.Female,
  permissionTimeoutMinutes: 60,
} as const;

/** An approved template with a call permission request button (API.md §15). */
export class PermissionTemplateDto {
  @ApiProperty({ example: 'call_permission_request' }) @IsString() @MinLength(1) @MaxLength(512) name: string;
  @ApiProperty({ example: 'en' }) @IsString() @MinLength(1) @MaxLength(15) language: string;
}

/** Create Outbound IVR: the specification's fields plus `ttsText`, `ttsVoice` and `flowId` (API.md §10). */
export class CreateOutboundIvrRequest {
  /** Channel used for the call; it must have voice. */
  @IsUUID() channelId: string;
  /**
   * When to call (ISO 8601; without an offset, UTC): later than now and at most 30 days ahead. The
   * record is then answered with status 0 (Pending) and `scheduledFor`; `DELETE /v1/scheduled/{id}`
   * cancels it before it is placed. Absent: at once (quiet hours covering calls may still hold it).
   */
  @ApiProperty({ required: false, type: String, format: 'date-time', example: '2026-03-01T09:00:00Z' })
  @IsOptionalNotNull()
  @IsIsoDateTime()
  sendAt?: string;
  /** Caller-supplied identifier; a second request with the same one returns the first record and places no call. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(256) externalId?: string | null;
  @PhoneNumberOrWhatsAppUserIdField(
    "Number to call: digits, optionally with a leading +, or a WhatsApp user id (BSUID). A BSUID calls its contact's number when it has one; on a WhatsApp channel without a phone line a user who shares no number is called by the BSUID itself, while a phone line then answers 400.",
  )
  destinationNumber: string;
  /** Audio played as the question. Exactly one of audioFileUrl and ttsText, unless flowId is given. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) audioFileUrl?: string | null;
  /** Text spoken as the question (synthesized before the call). */
  @IsOptional() @IsString() @Matches(/\S/, { message: 'ttsText must not be blank' }) @MaxLength(5000) ttsText?: string | null;
  @TtsVoiceField() ttsVoice?: TtsVoice;
  /** Played once when the call is answered. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) welcomeMessageFileUrl?: string | null;
  /** Played after a valid digit whose option has no response file. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) successMessageFileUrl?: string | null;
  /** Played after an invalid digit. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) failedMessageFileUrl?: string | null;
  /** Selectable digits, 1-12, each digit once (not with flowId). */
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(12)
  @UniqueDigits()
  @ValidateNestedObject({ each: true })
  @Type(() => OutboundIvrOption)
  options?: OutboundIvrOption[];
  /** Address that receives the outcome (OutboundIvrWebhookPayload) when the call ends. */
  @IsUrl(HTTP_URL) @MaxLength(2048) webhookUrl: string;
  /** Extra tries after no input or an invalid digit, 0-5. */
  @ApiProperty({ required: false, default: IVR_DEFAULTS.maxAudioRetries, minimum: 0, maximum: 5 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(5)
  maxAudioRetries?: number;
  /** Milliseconds to wait for a digit after the prompt, 1000-30000. */
  @ApiProperty({ required: false, default: IVR_DEFAULTS.inputTimeoutMs, minimum: 1000, maximum: 30000 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1000)
  @Max(30000)
  inputTimeoutMs?: number;
  /** Milliseconds allowed between digits, 1000-10000. */
  @ApiProperty({ required: false, default: IVR_DEFAULTS.digitTimeoutMs, minimum: 1000, maximum: 10000 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1000)
  @Max(10000)
  digitTimeoutMs?: number;
  /** A saved Outbound IVR Flow to run instead of a single question. */
  @IsOptional() @IsUUID() flowId?: string | null;
  /**
   * What happens when an answering machine picks up (API.md §14): Off runs the IVR whoever answers;
   * Hangup ends the call at once; LeaveMessage waits for the beep, plays the voicemail prompt and
   * hangs up. Either way the call ends with result 8 AnsweringMachine. Absent: the flow's setting
   * (with flowId), else Off.
   */
  @ApiProperty({ required: false, enum: MACHINE_DETECTION, enumName: 'MachineDetection', default: 'Off' })
  @IsOptionalNotNull()
  @IsIn(MACHINE_DETECTION, { message: `machineDetection must be one of ${MACHINE_DETECTION.join(', ')}` })
  machineDetection?: MachineDetection;
  /** LeaveMessage: the audio left on the answering machine. Exactly one of this and voicemailTtsText. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) voicemailAudioFileUrl?: string | null;
  /** LeaveMessage: text spoken (in ttsVoice) as the voicemail. */
  @IsOptional() @IsString() @Matches(/\S/, { message: 'voicemailTtsText must not be blank' }) @MaxLength(5000) voicemailTtsText?:
    string | null;
  /**
   * Record the call (API.md §16): the recording is stored and its URL given as `recordingUrl`.
   * Absent: the flow's setting (with flowId), else the channel's `recordCalls`.
   */
  @ApiProperty({ required: false, type: Boolean, example: true })
  @IsOptionalNotNull()
  @IsBoolean()
  record?: boolean;
  /** Played before the first prompt of a recorded call (an audio URL); absent: the channel's announcement. At most one of this and recordingAnnouncementTtsText. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) recordingAnnouncementAudioUrl?: string | null;
  /** Spoken (in ttsVoice) before the first prompt of a recorded call. */
  @IsOptional()
  @IsString()
  @Matches(/\S/, { message: 'recordingAnnouncementTtsText must not be blank' })
  @MaxLength(5000)
  recordingAnnouncementTtsText?: string | null;
  /**
   * WhatsApp calls (API.md §15): a user who has not given this number permission to call is asked
   * first, and the call waits (`awaitingPermission`) this many minutes for the answer.
   */
  @ApiProperty({ required: false, default: IVR_DEFAULTS.permissionTimeoutMinutes, minimum: 1, maximum: 10080 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(10080)
  permissionTimeoutMinutes?: number;
  /** WhatsApp calls: the text of the interactive permission request sent inside the 24 h service window. */
  @IsOptional() @IsString() @Matches(/\S/, { message: 'permissionRequestText must not be blank' }) @MaxLength(1024) permissionRequestText?:
    string | null;
  /** WhatsApp calls: the approved template with a call permission request button sent outside the service window. */
  @ApiProperty({ required: false, type: PermissionTemplateDto, nullable: true })
  @IsOptional()
  @ValidateNestedObject()
  @Type(() => PermissionTemplateDto)
  permissionTemplate?: PermissionTemplateDto | null;
}
