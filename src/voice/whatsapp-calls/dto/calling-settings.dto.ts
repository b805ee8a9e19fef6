import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, ValidateIf } from 'class-validator';
import type { CallHours, WhatsAppCallingSettings } from '../../../channels/channel.entity.js';
import { IsOptionalNotNull } from '../../../common/validation/optional.js';
import { ValidateNestedObject } from '../../../common/validation/nested.js';
import { PermissionTemplateDto } from '../../../outbound-ivr/dto/create-outbound-ivr.dto.js';

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
/** Meta's clock times: `HHMM`, 24 h. */
const HHMM = /^([01]\d|2[0-3])[0-5]\d$/;
const HHMM_MESSAGE = '$property must be a 24-hour time written HHMM (e.g. 0930)';

export class CallHoursDayDto {
  @ApiProperty({ enum: DAYS, example: 'MONDAY' })
  @IsIn(DAYS)
  dayOfWeek: (typeof DAYS)[number];
  @ApiProperty({ example: '0900' }) @IsString() @Matches(HHMM, { message: HHMM_MESSAGE }) openTime: string;
  @ApiProperty({ example: '1700' }) @IsString() @Matches(HHMM, { message: HHMM_MESSAGE }) closeTime: string;
}

export class CallHolidayDto {
  @ApiProperty({ example: '2026-12-25' })
  @IsString()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: '$property must be a date written YYYY-MM-DD' })
  date: string;
  @ApiProperty({ example: '0000' }) @IsString() @Matches(HHMM, { message: HHMM_MESSAGE }) startTime: string;
  @ApiProperty({ example: '2359' }) @IsString() @Matches(HHMM, { message: HHMM_MESSAGE }) endTime: string;
}

/** When users may call; outside them Meta shows the business as closed and the after-hours flow answers. */
export class CallHoursDto {
  /** IANA time zone the times are in. */
  @ApiProperty({ example: 'Asia/Riyadh' }) @IsString() @MaxLength(64) timezoneId: string;
  @ValidateNestedObject({ each: true })
  @IsArray()
  @ArrayMaxSize(14)
  @Type(() => CallHoursDayDto)
  weeklyOperatingHours: CallHoursDayDto[];
  @IsOptionalNotNull()
  @ValidateNestedObject({ each: true })
  @IsArray()
  @ArrayMaxSize(30)
  @Type(() => CallHolidayDto)
  holidaySchedule?: CallHolidayDto[];
}

/** PUT /v1/channels/{id}/calling (API.md §15). */
export class SetWhatsAppCallingDto {
  /** Turns calling on the number on or off (Meta shows or hides the call button). */
  @ApiProperty({ example: true }) @IsBoolean() enabled: boolean;
  /** Null or absent: calls at any hour. */
  @ApiProperty({ required: false, nullable: true, type: CallHoursDto })
  @IsOptional()
  @ValidateNestedObject()
  @Type(() => CallHoursDto)
  callHours?: CallHoursDto | null;
  /** Whether a user who calls is asked to let the business call back. Default false. */
  @ApiProperty({ required: false, example: true }) @IsOptionalNotNull() @IsBoolean() callbackPermission?: boolean;
  /** The flow that answers a user's call; none: users' calls are rejected. */
  @ApiProperty({ required: false, nullable: true, type: String, format: 'uuid' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUUID()
  inboundFlowId?: string | null;
  /** The flow that answers outside `callHours`; none: such calls are rejected. */
  @ApiProperty({ required: false, nullable: true, type: String, format: 'uuid' })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUUID()
  afterHoursFlowId?: string | null;
  /**
   * The approved template with a call permission request button that asks a user for permission to
   * call outside the 24 h service window, for a Create Outbound IVR that gives no `permissionTemplate`
   * of its own. Null or absent: none (such a call then ends NoPermission, saying why). It must be one
   * of the channel's stored (synced) templates of that name and language, APPROVED: else a 400
   * `WhatsApp:TemplateNotFound` or `WhatsApp:TemplateNotApproved` naming this field.
   */
  @ApiProperty({ required: false, nullable: true, type: PermissionTemplateDto })
  @IsOptional()
  @ValidateNestedObject()
  @Type(() => PermissionTemplateDto)
  permissionTemplate?: PermissionTemplateDto | null;
}

export class CallHoursViewDto {
  timezoneId: string;
  weeklyOperatingHours: CallHoursDayDto[];
  holidaySchedule: CallHolidayDto[];
}

/** Calling on a WhatsApp channel, as set. */
export class WhatsAppCallingDto {
  channelId: string;
  enabled: boolean;
  @ApiProperty({ nullable: true, type: CallHoursViewDto })
  callHours: CallHoursViewDto | null;
  callbackPermission: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  inboundFlowId: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  afterHoursFlowId: string | null;
  @ApiProperty({ nullable: true, type: PermissionTemplateDto })
  permissionTemplate: PermissionTemplateDto | null;

  static from(channelId: string, settings: WhatsAppCallingSettings): WhatsAppCallingDto {
    return { channelId, ...settings, permissionTemplate: settings.permissionTemplate ?? null };
  }
}

/** The request as stored: defaults filled in. */
export function settingsOf(body: SetWhatsAppCallingDto): WhatsAppCallingSettings {
  const hours: CallHours | null = body.callHours
    ? {
        timezoneId: body.callHours.timezoneId,
        weeklyOperatingHours: body.callHours.weeklyOperatingHours.map(({ dayOfWeek, openTime, closeTime }) => ({
          dayOfWeek,
          openTime,
          closeTime,
        })),
        holidaySchedule: (body.callHours.holidaySchedule ?? []).map(({ date, startTime, endTime }) => ({ date, startTime, endTime })),
      }
    : null;
  return {
    enabled: body.enabled,
    callHours: hours,
    callbackPermission: body.callbackPermission ?? false,
    inboundFlowId: body.inboundFlowId ?? null,
    afterHoursFlowId: body.afterHoursFlowId ?? null,
    permissionTemplate: body.permissionTemplate ? { name: body.permissionTemplate.name, language: body.permissionTemplate.language } : null,
  };
}
