import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { SendBaseDto } from './send-message.dto.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';

/** ParameterValueDto: one value of a template parameter entry. */
export class ParameterValueDto {
  /** `text`, `image`, `document` or `video`. */
  @IsIn(['text', 'image', 'document', 'video']) type: 'text' | 'image' | 'document' | 'video';
  /** For Type text. */
  @IsOptionalNotNull() @IsString() @MaxLength(1024) text?: string;
  /** For Type image. */
  @IsOptionalNotNull() @IsString() @MaxLength(2048) imageUrl?: string;
  /** For Type document. */
  @IsOptionalNotNull() @IsString() @MaxLength(2048) documentUrl?: string;
  /** For Type document. */
  @IsOptionalNotNull() @IsString() @MaxLength(240) documentFilename?: string;
  /** For Type video. */
  @IsOptionalNotNull() @IsString() @MaxLength(2048) videoUrl?: string;
}

/** TemplateParameterDto: fills one component of the template. */
export class TemplateParameterDto {
  /** `Header`, `Body` or `Buttons`: the component filled. */
  @IsIn(['Header', 'Body', 'Buttons']) type: 'Header' | 'Body' | 'Buttons';
  /** `url` or `quick_reply`; required for Buttons entries. */
  @IsOptionalNotNull() @IsIn(['url', 'quick_reply']) subType?: 'url' | 'quick_reply';
  /** Button position: `0` first, `1` second, `2` third; required for Buttons entries. */
  @IsOptionalNotNull() @Matches(/^\d{1,2}$/) index?: string;
  @IsArray() @ArrayMaxSize(100) @ValidateNestedObject({ each: true }) @Type(() => ParameterValueDto) values: ParameterValueDto[];
}

/** Send Template (the specification's request; `contactId` may stand in for `toNumber`). */
export class SendTemplateDto extends SendBaseDto {
  /** Name of the approved template. */
  @IsString() @MinLength(1) @MaxLength(512) templateName: string;
  /** Language code of the template. */
  @IsString() @MinLength(2) @MaxLength(20) language: string;
  /** Fills template components; none for a template without placeholders. */
  @ApiProperty({ required: false, type: [TemplateParameterDto], default: [] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNestedObject({ each: true })
  @Type(() => TemplateParameterDto)
  parameters: TemplateParameterDto[] = [];
}

/** The Template message response of the specification (the same for every send). */
export class SendMessageResultDto {
  /** Contact the message belongs to. */
  contactId: string;
  /** `accepted` when queued for delivery now; `scheduled` when it waits until `scheduledFor` (`sendAt`, or the end of the contact's quiet hours). */
  @ApiProperty({ enum: ['accepted', 'scheduled'] }) status: string;
  /** Human-readable result text. */
  message: string;
  /** Identifier of the conversation event created (for a scheduled send, what `DELETE /v1/scheduled/{id}` takes). */
  conversationEventId: string;
  /**
   * When a scheduled send leaves (ISO 8601 UTC); only in a `scheduled` answer (an `accepted` one
   * keeps the specification's four fields).
   */
  @ApiProperty({ type: String, format: 'date-time', required: false }) scheduledFor?: string;

  /** A send queued for delivery (now, or at `scheduledFor`): the event recorded for it, and `message` to tell the caller. */
  static accepted(
    recorded: { contactId: string; eventId: string },
    message: string,
    scheduledFor: Date | null = null,
  ): SendMessageResultDto {
    const answer = { contactId: recorded.contactId, status: 'accepted', message, conversationEventId: recorded.eventId };
    return scheduledFor ? { ...answer, status: 'scheduled', scheduledFor: TimestampFormat.utc(scheduledFor) } : answer;
  }
}
