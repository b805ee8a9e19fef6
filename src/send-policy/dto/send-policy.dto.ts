import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { MAX_KEYWORD_LENGTH, MAX_KEYWORDS } from '../keywords.js';

/**
 * The workspace's send policy (API.md §13): the parts this version has. Quiet hours, the time zone
 * and the frequency cap are not part of it yet.
 */
export class SendPolicyDto {
  /** An inbound WhatsApp text that is exactly one of these (trimmed, spaces collapsed, any case) opts the contact out of marketing. */
  @ApiProperty({ type: [String], example: ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء'] }) stopWords: string[];
  /** Likewise, opts the contact in. */
  @ApiProperty({ type: [String], example: ['START', 'اشتراك'] }) startWords: string[];
}

/** Update Send Policy: only the parts present change; `null` puts a part back to its defaults. */
export class UpdateSendPolicyDto {
  @ApiProperty({
    type: [String],
    nullable: true,
    required: false,
    description: `Up to ${MAX_KEYWORDS} words of 1-${MAX_KEYWORD_LENGTH} characters; null restores the defaults (STOP, UNSUBSCRIBE, إيقاف, الغاء); [] turns stop words off.`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KEYWORDS)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(MAX_KEYWORD_LENGTH * 4, { each: true })
  stopWords?: string[] | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    required: false,
    description: `Up to ${MAX_KEYWORDS} words of 1-${MAX_KEYWORD_LENGTH} characters; null restores the defaults (START, اشتراك); [] turns start words off.`,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KEYWORDS)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(MAX_KEYWORD_LENGTH * 4, { each: true })
  startWords?: string[] | null;
}
