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
  ValidateNested,
} from 'class-validator';
import { PhoneNumberField } from '../../common/phone/phone-number.js';
import { ChannelType } from '../channel.entity.js';

const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

export class WhatsAppConfigDto {
  @IsIn(['sandbox', 'cloud-api']) provider: 'sandbox' | 'cloud-api';
  /** WhatsApp Cloud API phone number id. */
  @IsOptional() @IsString() @MaxLength(100) phoneNumberId?: string;
  /** WhatsApp Business Account id. */
  @IsOptional() @IsString() @MaxLength(100) wabaId?: string;
  /** Write-only. */
  @IsOptional() @IsString() @MaxLength(2048) accessToken?: string;
  /** Write-only: checks `X-Hub-Signature-256` of inbound webhooks. */
  @IsOptional() @IsString() @MaxLength(512) appSecret?: string;
  /** Write-only: answers Meta's subscription handshake. */
  @IsOptional() @IsString() @MaxLength(512) verifyToken?: string;
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
  @IsOptional() @IsArray() @ArrayMaxSize(50) @Matches(/^[0-9*#]$/, { each: true }) pressDigits: string[] = [];
  @IsOptional() @IsInt() @Min(0) @Max(120000) ringMs: number = 1000;
  @IsOptional() @IsInt() @Min(0) @Max(600000) talkMs: number = 1000;
}

export class VoiceConfigDto {
  @IsIn(['sandbox', 'twilio']) provider: 'sandbox' | 'twilio';
  @IsOptional() @IsString() @MaxLength(100) accountSid?: string;
  /** Write-only. */
  @IsOptional() @IsString() @MaxLength(512) authToken?: string;
  @IsOptional() @PhoneNumberField('Caller id for outbound calls; defaults to the channel number.') fromNumber?: string;
  @IsOptional() @ValidateNested() @Type(() => VoiceSandboxDto) sandbox?: VoiceSandboxDto;
}

/** ChannelConfig of API.md §3. */
export class ChannelConfigDto {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  @IntEnumProperty(ChannelType, 'ChannelType')
  @IsIntEnum(ChannelType)
  type: ChannelType;
  @IsOptional() @IsString() @MaxLength(2048) icon?: string;
  @PhoneNumberField('The channel number.') phoneNumber: string;
  /** Receives the WhatsApp Message Webhook. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) webhookUrl?: string;
  /** Receives the Call Webhook. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) postCallWebhookUrl?: string;
  @IsOptional() @ValidateNested() @Type(() => WhatsAppConfigDto) whatsApp?: WhatsAppConfigDto;
  @IsOptional() @ValidateNested() @Type(() => VoiceConfigDto) voice?: VoiceConfigDto;
}
