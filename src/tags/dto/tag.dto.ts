import { IsBoolean, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { SortedPagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import type { Tag } from '../tag.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';

export class CreateTagDto {
  @IsString() @MinLength(1) @MaxLength(100) name: string;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(2048) icon?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(1000) description?: string | null;
  @IsOptionalNotNull() @IsBoolean() isPinned?: boolean;
}

/** Only the fields present change. */
export class UpdateTagDto {
  @IsOptionalNotNull() @IsString() @MinLength(1) @MaxLength(100) name?: string;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(2048) icon?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(1000) description?: string | null;
  @IsOptionalNotNull() @IsBoolean() isPinned?: boolean;
}

export class ListTagsQueryDto extends SortedPagedRequestDto {}

export class TagDto {
  id: string;
  name: string;
  icon: string | null;
  description: string | null;
  isPinned: boolean;
  /** ISO 8601 UTC. */
  creationTime: string;

  static from(tag: Tag): TagDto {
    return {
      id: tag.id,
      name: tag.name,
      icon: tag.icon,
      description: tag.description,
      isPinned: tag.isPinned,
      creationTime: TimestampFormat.utc(tag.creationTime),
    };
  }
}
