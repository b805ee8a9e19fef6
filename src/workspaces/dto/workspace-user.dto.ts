import { IntEnumProperty, IsIntEnum } from '../../openapi/int-enum.js';

import { IsBoolean, IsString, IsUrl, MaxLength, MinLength } from 'class-validator';
import { Transform } from 'class-transformer';
import { PhoneNumberField } from '../../common/phone/phone-number.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { WorkspaceUser, WorkspaceUserRole } from '../workspace-user.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { IsEmail } from '../../common/validation/is-email.js';

export class WorkspaceUserDto {
  id: string;
  workspaceId: string;
  /** The id used by conversation assignment (for an AI agent, the agent id). */
  userId: string;
  email: string;
  name: string;
  logoUrl: string | null;
  @IntEnumProperty(WorkspaceUserRole, 'WorkspaceUserRole')
  role: WorkspaceUserRole;
  /** ISO 8601 UTC, e.g. `2026-03-01T14:47:18.501Z`. */
  creationTime: string;
  isAiAgent: boolean;
  phoneNumber: string | null;

  static from(user: WorkspaceUser): WorkspaceUserDto {
    return {
      id: user.id,
      workspaceId: user.workspaceId,
      userId: user.userId,
      email: user.email,
      name: user.name,
      logoUrl: user.logoUrl,
      role: user.role,
      creationTime: TimestampFormat.utc(user.creationTime),
      isAiAgent: user.isAiAgent,
      phoneNumber: user.phoneNumber,
    };
  }
}

export class CreateWorkspaceUserDto {
  @IsEmail() @MaxLength(320) email: string;
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  @Transform(({ value }: { value: unknown }) => (value === 'Owner' ? 1 : value === 'Member' ? 2 : value))
  @IntEnumProperty(WorkspaceUserRole, 'WorkspaceUserRole', { description: '1 Owner, 2 Member (names accepted)' })
  @IsIntEnum(WorkspaceUserRole)
  role: WorkspaceUserRole;
  @IsOptionalNotNull() @PhoneNumberField() phoneNumber?: string;
  @IsOptionalNotNull() @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }) @MaxLength(2048) logoUrl?: string;
  @IsOptionalNotNull() @IsBoolean() isAiAgent?: boolean;
}
