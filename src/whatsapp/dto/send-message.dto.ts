import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsString, IsUrl, IsUUID, MaxLength, MinLength } from 'class-validator';
import { PhoneNumberField } from '../../common/phone/phone-number.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';

const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

/** What every send names: the channel and the recipient. */
export class SendBaseDto {
  @IsUUID() channelId: string;
  @PhoneNumberField('Recipient phone number.') toNumber: string;
}

export class SendTextDto extends SendBaseDto {
  @IsString() @MinLength(1) @MaxLength(4096) text: string;
  @IsOptionalNotNull() @IsBoolean() previewUrl?: boolean;
  /** Provider message id (`wamid.…`) of the message this one answers. */
  @IsOptionalNotNull() @IsString() @MaxLength(200) replyToMessageId?: string;
}

export class SendImageDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) imageUrl: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1024) caption?: string;
}

export class SendAudioDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) audioUrl: string;
}

export class SendVideoDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) videoUrl: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1024) caption?: string;
}

export class SendFileDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) fileUrl: string;
  @IsString() @MinLength(1) @MaxLength(240) fileName: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1024) caption?: string;
}

export class InteractiveButtonDto {
  @IsString() @MinLength(1) @MaxLength(256) id: string;
  @IsString() @MinLength(1) @MaxLength(20) title: string;
}

export class SendInteractiveButtonsDto extends SendBaseDto {
  @IsString() @MinLength(1) @MaxLength(1024) body: string;
  @IsOptionalNotNull() @IsString() @MaxLength(60) header?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(60) footer?: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ValidateNestedObject({ each: true })
  @Type(() => InteractiveButtonDto)
  buttons: InteractiveButtonDto[];
}

/** Admin: an inbound message as if the provider had delivered it (sandbox channels). */
export class SandboxInboundDto {
  @PhoneNumberField('Sender phone number.') fromNumber: string;
  @IsString() @MinLength(1) @MaxLength(20) type: 'text' | 'button' | 'interactive';
  @IsOptionalNotNull() @IsString() @MaxLength(4096) text?: string;
  /** Quick-reply payload or interactive button id. */
  @IsOptionalNotNull() @IsString() @MaxLength(1000) payload?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(200) replyToMessageId?: string;
}
