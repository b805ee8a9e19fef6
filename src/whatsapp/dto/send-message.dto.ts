import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { ContactIdField, ToNumberField, type SendRecipient } from './send-recipient.js';

const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

/** What every send names: the channel and the recipient (`toNumber` or `contactId`, exactly one). */
export class SendBaseDto implements SendRecipient {
  @IsUUID() channelId: string;
  @ToNumberField() toNumber?: string;
  @ContactIdField() contactId?: string;
}

export class SendTextDto extends SendBaseDto {
  @IsString() @MinLength(1) @MaxLength(4096) text: string;
  @IsOptional() @IsBoolean() previewUrl?: boolean;
  /** Provider message id (`wamid.…`) of the message this one answers. */
  @IsOptional() @IsString() @MaxLength(200) replyToMessageId?: string;
}

export class SendImageDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) imageUrl: string;
  @IsOptional() @IsString() @MaxLength(1024) caption?: string;
}

export class SendAudioDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) audioUrl: string;
}

export class SendVideoDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) videoUrl: string;
  @IsOptional() @IsString() @MaxLength(1024) caption?: string;
}

export class SendFileDto extends SendBaseDto {
  @IsUrl(HTTP_URL) @MaxLength(2048) fileUrl: string;
  @IsString() @MinLength(1) @MaxLength(240) fileName: string;
  @IsOptional() @IsString() @MaxLength(1024) caption?: string;
}

export class InteractiveButtonDto {
  @IsString() @MinLength(1) @MaxLength(256) id: string;
  @IsString() @MinLength(1) @MaxLength(20) title: string;
}

export class SendInteractiveButtonsDto extends SendBaseDto {
  @IsString() @MinLength(1) @MaxLength(1024) body: string;
  @IsOptional() @IsString() @MaxLength(60) header?: string;
  @IsOptional() @IsString() @MaxLength(60) footer?: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(3)
  @ValidateNested({ each: true })
  @Type(() => InteractiveButtonDto)
  buttons: InteractiveButtonDto[];
}
