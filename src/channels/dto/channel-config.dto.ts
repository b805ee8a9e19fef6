import { IntEnumProperty, IsIntEnum } from '../../openapi/int-enum.js';
import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { PhoneNumberField } from '../../common/phone/phone-number.js';
import { ChannelType } from '../channel.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';

const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };
/** Meta's business portfolio ids are digits; letters, `_` and `-` are taken too (an id of the operator's own). */
const BUSINESS_ID = /^[A-Za-z0-9_-]{1,100}$/;
const BUSINESS_ID_MESSAGE = 'businessId must be 1-100 letters, digits, "_" or "-" (Meta\'s business portfolio id)';

export class WhatsAppConfigDto {
  @IsIn(['sandbox', 'cloud-api']) provider: 'sandbox' | 'cloud-api';
  /** WhatsApp Cloud API phone number id. */
  @IsOptionalNotNull() @IsString() @MaxLength(100) phoneNumberId?: string;
  /** WhatsApp Business Account id. */
  @IsOptionalNotNull() @IsString() @MaxLength(100) wabaId?: string;
  /** Write-only. */
  @IsOptionalNotNull() @IsString() @MaxLength(2048) accessToken?: string;
  /** Write-only: checks `X-Hub-Signature-256` of inbound webhooks. */
  @IsOptionalNotNull() @IsString() @MaxLength(512) appSecret?: string;
  /** Write-only: answers Meta's subscription handshake. */
  @IsOptionalNotNull() @IsString() @MaxLength(512) verifyToken?: string;
}

export class VoiceSandboxDto {
  @ApiProperty({
    oneOf: [{ type: 'boolean' }, { type: 'string', enum: ['busy'] }],
    description: 'true answers, false rings out, "busy" is busy',
  })
  @ValidateIf((o: VoiceSandboxDto) => o.answer !== 'busy')
  @IsBoolean()
  answer: boolean | 'busy' = true;
  /** Digits the simulated callee presses, in order. */
  @IsOptionalNotNull() @IsArray() @ArrayMaxSize(50) @Matches(/^[0-9*#]$/, { each: true }) pressDigits: string[] = [];
  @IsOptionalNotNull() @IsInt() @Min(0) @Max(120000) ringMs: number = 1000;
  @IsOptionalNotNull() @IsInt() @Min(0) @Max(600000) talkMs: number = 1000;
}

export class VoiceConfigDto {
  @IsIn(['sandbox', 'twilio']) provider: 'sandbox' | 'twilio';
  @IsOptionalNotNull() @IsString() @MaxLength(100) accountSid?: string;
  /** Write-only. */
  @IsOptionalNotNull() @IsString() @MaxLength(512) authToken?: string;
  @IsOptionalNotNull() @PhoneNumberField('Caller id for outbound calls; defaults to the channel number.') fromNumber?: string;
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => VoiceSandboxDto) sandbox?: VoiceSandboxDto;
  /** Record the channel's calls unless a request (or its flow) says otherwise (API.md §16). Default false. */
  @ApiProperty({ required: false, type: Boolean, default: false, example: true })
  @IsOptionalNotNull()
  @IsBoolean()
  recordCalls?: boolean;
  /** Played before the first prompt of every recorded call that brings no announcement of its own (an audio URL). */
  @IsOptionalNotNull() @IsUrl(HTTP_URL) @MaxLength(2048) recordingAnnouncementAudioUrl?: string;
  /** Spoken (in the call's ttsVoice) before the first prompt of a recorded call; at most one of this and recordingAnnouncementAudioUrl. */
  @IsOptionalNotNull()
  @IsString()
  @Matches(/\S/, { message: 'recordingAnnouncementTtsText must not be blank' })
  @MaxLength(5000)
  recordingAnnouncementTtsText?: string;
}

/** ChannelConfig of API.md §3. */
export class ChannelConfigDto {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  @IntEnumProperty(ChannelType, 'ChannelType')
  @IsIntEnum(ChannelType)
  type: ChannelType;
  @IsOptionalNotNull() @IsString() @MaxLength(2048) icon?: string;
  @PhoneNumberField('The channel number.') phoneNumber: string;
  /** Receives the WhatsApp Message Webhook. */
  @IsOptionalNotNull() @IsUrl(HTTP_URL) @MaxLength(2048) webhookUrl?: string;
  /** Receives the Call Webhook. */
  @IsOptionalNotNull() @IsUrl(HTTP_URL) @MaxLength(2048) postCallWebhookUrl?: string;
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => WhatsAppConfigDto) whatsApp?: WhatsAppConfigDto;
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => VoiceConfigDto) voice?: VoiceConfigDto;
  /** Meta's business portfolio id: channels of the workspace with the same one share one messaging-limit count. */
  @ApiProperty({ required: false, example: '1029384756102938' })
  @IsOptionalNotNull()
  @IsString()
  @Matches(BUSINESS_ID, { message: BUSINESS_ID_MESSAGE })
  businessId?: string;
}

/**
 * Update Channel (Partial): only the fields given change. `name` cannot be null; `null` clears
 * `icon`, `webhookUrl` or `postCallWebhookUrl`. Providers and credentials stay with the operators'
 * Update Channel.
 */
export class UpdateChannelDto {
  @IsOptionalNotNull() @IsString() @MinLength(1) @MaxLength(200) name?: string;
  @ApiProperty({ required: false, nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @MaxLength(2048)
  icon?: string | null;
  /** Receives the WhatsApp Message Webhook; null stops it. */
  @ApiProperty({ required: false, nullable: true, type: String, example: 'http://localhost:4000/hooks' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUrl(HTTP_URL)
  @MaxLength(2048)
  webhookUrl?: string | null;
  /** Receives the Call Webhook; null stops it. */
  @ApiProperty({ required: false, nullable: true, type: String, example: 'http://localhost:4000/hooks' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUrl(HTTP_URL)
  @MaxLength(2048)
  postCallWebhookUrl?: string | null;
  /**
   * Meta's business portfolio id: channels of the workspace with the same one share one messaging-limit
   * count (unique recipients per rolling 24 h); null: the channel counts on its own again.
   */
  @ApiProperty({ required: false, nullable: true, type: String, example: '1029384756102938' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Matches(BUSINESS_ID, { message: BUSINESS_ID_MESSAGE })
  businessId?: string | null;
}
