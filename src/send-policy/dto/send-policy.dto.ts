import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { MAX_KEYWORD_LENGTH, MAX_KEYWORDS } from '../keywords.js';
import { CLOCK_TIME, QUIET_HOURS_SCOPES, type QuietHoursScope } from '../quiet-hours.js';

/** The most marketing messages a cap may allow, and the longest window it may count over. */
export const MAX_CAP_COUNT = 1000;
export const MAX_CAP_DAYS = 365;

/** Quiet hours: marketing templates and calls that would land inside wait until `end`, in the contact's time zone. */
export class QuietHoursDto {
  /** `HH:MM` (24-hour clock) the quiet period starts, in the contact's time zone. */
  @ApiProperty({ example: '21:00', pattern: CLOCK_TIME.source }) start: string;
  /** `HH:MM` it ends; before `start`, the period spans midnight. */
  @ApiProperty({ example: '09:00', pattern: CLOCK_TIME.source }) end: string;
  /** What waits: `Marketing` (MARKETING-category templates), `Calls` (Create Outbound IVR). */
  @ApiProperty({ enum: QUIET_HOURS_SCOPES, isArray: true, example: ['Marketing', 'Calls'] }) appliesTo: QuietHoursScope[];
}

/** Where a contact's time zone comes from: the property (when set on the contact), else its number's country, else `default`. */
export class TimeZonePolicyDto {
  /**
   * Use the country of the contact's phone number. A country with several zones counts as its
   * capital's (US: America/New_York, Canada: America/Toronto, Russia: Europe/Moscow, Australia:
   * Australia/Sydney, Brazil: America/Sao_Paulo, Mexico: America/Mexico_City, Indonesia: Asia/Jakarta, ...).
   */
  fromPhoneNumber: boolean;
  /** A Text or Select contact property whose value is an IANA zone name (e.g. `Africa/Cairo`); null: none. */
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) property: string | null;
  /** IANA zone name used when nothing else tells the contact's zone. */
  @ApiProperty({ example: 'Asia/Riyadh' }) default: string;
}

export class MarketingPerDaysDto {
  /** At most this many MARKETING templates to one contact... */
  @ApiProperty({ minimum: 1, maximum: MAX_CAP_COUNT, example: 2 }) count: number;
  /** ...in any window of this many days (counted back from the send). */
  @ApiProperty({ minimum: 1, maximum: MAX_CAP_DAYS, example: 7 }) days: number;
}

/** A marketing template beyond the cap is a 400 `Policy:FrequencyCapReached`. */
export class FrequencyCapDto {
  @ApiProperty({ type: MarketingPerDaysDto }) marketingPerDays: MarketingPerDaysDto;
}

/** The workspace's send policy (API.md §13). */
export class SendPolicyDto {
  /** null: no quiet hours. */
  @ApiProperty({ type: QuietHoursDto, nullable: true }) quietHours: QuietHoursDto | null;
  @ApiProperty({ type: TimeZonePolicyDto }) timezone: TimeZonePolicyDto;
  /** An inbound WhatsApp text that is exactly one of these (trimmed, spaces collapsed, any case) opts the contact out of marketing. */
  @ApiProperty({ type: [String], example: ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء'] }) stopWords: string[];
  /** Likewise, opts the contact in. */
  @ApiProperty({ type: [String], example: ['START', 'اشتراك'] }) startWords: string[];
  /** null: no cap. */
  @ApiProperty({ type: FrequencyCapDto, nullable: true }) frequencyCap: FrequencyCapDto | null;
}

export class QuietHoursInput {
  /** `HH:MM`, 00:00-23:59. */
  @ApiProperty({ example: '21:00', pattern: CLOCK_TIME.source })
  @IsString()
  @Matches(CLOCK_TIME, { message: 'start must be a time HH:MM (00:00-23:59)' })
  start: string;
  /** `HH:MM`, 00:00-23:59, not equal to `start`. */
  @ApiProperty({ example: '09:00', pattern: CLOCK_TIME.source })
  @IsString()
  @Matches(CLOCK_TIME, { message: 'end must be a time HH:MM (00:00-23:59)' })
  end: string;
  /** Default both. */
  @ApiProperty({ enum: QUIET_HOURS_SCOPES, isArray: true, required: false, default: ['Marketing', 'Calls'] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayUnique()
  @IsIn(QUIET_HOURS_SCOPES, { each: true })
  appliesTo?: QuietHoursScope[];
}

/** The whole part: a field left out takes its default. */
export class TimeZonePolicyInput {
  /** Default true. */
  @IsOptionalNotNull() @IsBoolean() fromPhoneNumber?: boolean;
  /** A Text or Select contact property of the workspace; null or absent: none. */
  @ApiProperty({ type: String, format: 'uuid', nullable: true, required: false })
  @IsOptional()
  @IsUUID()
  property?: string | null;
  /** An IANA zone name; default `Asia/Riyadh`. */
  @ApiProperty({ required: false, example: 'Asia/Riyadh' })
  @IsOptionalNotNull()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  default?: string;
}

export class MarketingPerDaysInput {
  @ApiProperty({ minimum: 1, maximum: MAX_CAP_COUNT }) @IsInt() @Min(1) @Max(MAX_CAP_COUNT) count: number;
  @ApiProperty({ minimum: 1, maximum: MAX_CAP_DAYS }) @IsInt() @Min(1) @Max(MAX_CAP_DAYS) days: number;
}

export class FrequencyCapInput {
  @ApiProperty({ type: MarketingPerDaysInput })
  @ValidateNestedObject()
  @Type(() => MarketingPerDaysInput)
  marketingPerDays: MarketingPerDaysInput;
}

/** Update Send Policy: only the parts present change; `null` puts a part back to its default. */
export class UpdateSendPolicyDto {
  /** null: no quiet hours. */
  @ApiProperty({ type: QuietHoursInput, nullable: true, required: false })
  @IsOptional()
  @ValidateNestedObject()
  @Type(() => QuietHoursInput)
  quietHours?: QuietHoursInput | null;
  /** null: the default (fromPhoneNumber true, no property, Asia/Riyadh). */
  @ApiProperty({ type: TimeZonePolicyInput, nullable: true, required: false })
  @IsOptional()
  @ValidateNestedObject()
  @Type(() => TimeZonePolicyInput)
  timezone?: TimeZonePolicyInput | null;
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
  /** null: no cap. */
  @ApiProperty({ type: FrequencyCapInput, nullable: true, required: false })
  @IsOptional()
  @ValidateNestedObject()
  @Type(() => FrequencyCapInput)
  frequencyCap?: FrequencyCapInput | null;
}
