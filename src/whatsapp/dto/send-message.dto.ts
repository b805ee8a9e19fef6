import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { ContactIdField, ToNumberField, type SendRecipient } from './send-recipient.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { IsIsoDateTime } from '../../common/time/iso-date-time.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { IsReactionEmoji, MediaUrlOr } from './whatsapp-validators.js';

/** What every send names: the channel and the recipient (`toNumber` or `contactId`, exactly one), and when it leaves. */
export class SendBaseDto implements SendRecipient {
  @IsUUID() channelId: string;
  @ToNumberField() toNumber?: string;
  @ContactIdField() contactId?: string;
  /**
   * When to send (ISO 8601; without an offset, UTC): later than now and at most 30 days ahead. The
   * answer is then `status: "scheduled"` with `scheduledFor`; `DELETE /v1/scheduled/{conversationEventId}`
   * cancels it before it leaves. Absent: at once (a MARKETING template may still wait for the end of quiet hours).
   */
  @ApiProperty({ required: false, type: String, format: 'date-time', example: '2026-03-01T09:00:00Z' })
  @IsOptionalNotNull()
  @IsIsoDateTime()
  sendAt?: string;
}

/** A send that may answer an earlier message (WhatsApp shows it quoted): every free-form send but a reaction. */
export class ReplyableSendDto extends SendBaseDto {
  /**
   * The message this one answers: its `eventId` or its provider id (`wamid.…`, the webhook's
   * `providerMessageId`), a WhatsApp message of this contact on this channel that reached WhatsApp.
   */
  @IsOptionalNotNull() @IsString() @MinLength(1) @MaxLength(200) replyToMessageId?: string;
}

export class SendTextDto extends ReplyableSendDto {
  @IsString() @MinLength(1) @MaxLength(4096) text: string;
  @IsOptionalNotNull() @IsBoolean() previewUrl?: boolean;
}

export class SendImageDto extends ReplyableSendDto {
  /** Public http(s) URL of a JPEG or PNG image; give this or `mediaId`. */
  @MediaUrlOr('mediaId') imageUrl?: string;
  /** Id of an image uploaded with Upload Image, Video, or PDF; give this or `imageUrl`. */
  @IsOptionalNotNull() @IsUUID() mediaId?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1024) caption?: string;
}

export class SendAudioDto extends ReplyableSendDto {
  /** Public http(s) URL of an audio file; give this or `mediaId`. */
  @MediaUrlOr('mediaId') audioUrl?: string;
  /** Id of an audio file uploaded with Upload Audio File (sent to WhatsApp as OGG/Opus); give this or `audioUrl`. */
  @IsOptional() @IsUUID() mediaId?: string;
}

export class SendVideoDto extends ReplyableSendDto {
  /** Public http(s) URL of an MP4 or 3GP video; give this or `mediaId`. */
  @MediaUrlOr('mediaId') videoUrl?: string;
  /** Id of a video uploaded with Upload Image, Video, or PDF; give this or `videoUrl`. */
  @IsOptionalNotNull() @IsUUID() mediaId?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1024) caption?: string;
}

export class SendFileDto extends ReplyableSendDto {
  /** Public http(s) URL of the document; give this or `mediaId`. */
  @MediaUrlOr('mediaId') fileUrl?: string;
  /** Id of a PDF uploaded with Upload Image, Video, or PDF; give this or `fileUrl`. */
  @IsOptionalNotNull() @IsUUID() mediaId?: string;
  /** The name the recipient sees; required with `fileUrl`, the uploaded file's name by default with `mediaId`. */
  @ValidateIf((dto: SendFileDto) => dto.fileName !== undefined || dto.mediaId === undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(240)
  fileName?: string;
  @IsOptionalNotNull() @IsString() @MaxLength(1024) caption?: string;
}

export class InteractiveButtonDto {
  @IsString() @MinLength(1) @MaxLength(256) id: string;
  @IsString() @MinLength(1) @MaxLength(20) title: string;
}

export class SendInteractiveButtonsDto extends ReplyableSendDto {
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

export class SendLocationDto extends ReplyableSendDto {
  /** Decimal degrees, -90 to 90. */
  @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(-90) @Max(90) latitude: number;
  /** Decimal degrees, -180 to 180. */
  @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(-180) @Max(180) longitude: number;
  /** The place's name. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(1000) name?: string;
  /** The place's address (WhatsApp shows it under the name). */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(1000) address?: string;
}

export class ContactNameDto {
  /** The name shown on the card. */
  @IsString() @MinLength(1) @MaxLength(256) formattedName: string;
  @IsOptional() @IsString() @MaxLength(256) firstName?: string;
  @IsOptional() @IsString() @MaxLength(256) lastName?: string;
}

export class ContactPhoneDto {
  /** The number as it should appear on the card. */
  @IsString() @MinLength(1) @MaxLength(64) phone: string;
  /** e.g. `CELL`, `MAIN`, `IPHONE`, `HOME`, `WORK`. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(20) type?: string;
}

export class ContactEmailDto {
  @IsEmail() @MaxLength(320) email: string;
  /** e.g. `HOME`, `WORK`. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(20) type?: string;
}

export class ContactOrgDto {
  @IsOptional() @IsString() @MaxLength(256) company?: string;
  /** Job title. */
  @IsOptional() @IsString() @MaxLength(256) title?: string;
}

/** One shared contact card. */
export class ContactCardDto {
  @ValidateNestedObject() @Type(() => ContactNameDto) name: ContactNameDto;
  @IsOptional() @IsArray() @ArrayMaxSize(20) @ValidateNestedObject({ each: true }) @Type(() => ContactPhoneDto) phones?: ContactPhoneDto[];
  @IsOptional() @IsArray() @ArrayMaxSize(20) @ValidateNestedObject({ each: true }) @Type(() => ContactEmailDto) emails?: ContactEmailDto[];
  @IsOptional() @ValidateNestedObject() @Type(() => ContactOrgDto) org?: ContactOrgDto;
}

export class SendContactsDto extends ReplyableSendDto {
  /** 1 to 10 contact cards. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNestedObject({ each: true })
  @Type(() => ContactCardDto)
  contacts: ContactCardDto[];
}

export class SendReactionDto extends SendBaseDto {
  /**
   * The message reacted to: its `eventId` (`conversationEventId`) or its provider id (`wamid.…`, the
   * webhook's `providerMessageId`); an inbound or outbound WhatsApp message of this contact on this channel.
   */
  @IsString() @MinLength(1) @MaxLength(200) messageId: string;
  /** One emoji, or "" to remove the reaction. */
  @IsString() @IsReactionEmoji() emoji: string;
}

export class ListRowDto {
  /** Comes back in the contact's reply; unique in the message. */
  @IsString() @MinLength(1) @MaxLength(200) id: string;
  @IsString() @MinLength(1) @MaxLength(24) title: string;
  @IsOptional() @IsString() @MaxLength(72) description?: string;
}

export class ListSectionDto {
  /** Required when the list has more than one section. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(24) title?: string;
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(10) @ValidateNestedObject({ each: true }) @Type(() => ListRowDto) rows: ListRowDto[];
}

export class SendListDto extends ReplyableSendDto {
  @IsString() @MinLength(1) @MaxLength(4096) body: string;
  /** Text header. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(60) header?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(60) footer?: string;
  /** The label of the button that opens the list. */
  @IsString() @MinLength(1) @MaxLength(20) buttonText: string;
  /** 1 to 10 sections, at most 10 rows in all, row ids unique. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @ValidateNestedObject({ each: true })
  @Type(() => ListSectionDto)
  sections: ListSectionDto[];
}

export class SendCtaUrlDto extends ReplyableSendDto {
  @IsString() @MinLength(1) @MaxLength(1024) body: string;
  /** Text header. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(60) header?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(60) footer?: string;
  /** The button's label. */
  @IsString() @MinLength(1) @MaxLength(20) displayText: string;
  /** Opened in the contact's browser when the button is tapped; https only. */
  @IsUrl({ require_protocol: true, protocols: ['https'] }) @MaxLength(2048) url: string;
}

/** Mark As Read: the inbound message (and the earlier ones of the chat) shows read to the contact. */
export class MarkAsReadDto {
  @IsUUID() channelId: string;
  /** An inbound WhatsApp message on this channel: its `eventId` (`conversationEventId`) or its provider id (`wamid.…`). */
  @IsString() @MinLength(1) @MaxLength(200) messageId: string;
  /** Also show the contact a typing indicator (until the next message, at most 25 seconds). */
  @IsOptional() @IsBoolean() typingIndicator?: boolean;
}
