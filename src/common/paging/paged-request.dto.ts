import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { Transform } from 'class-transformer';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptionalNotNull } from '../validation/optional.js';

export const MAX_PAGE_SIZE = 1000;
/** The largest 32-bit integer, as in the .NET clients' `int SkipCount`; PostgreSQL's OFFSET stops at 2^63 - 1. */
export const MAX_SKIP_COUNT = 2_147_483_647;

const toIntIfNumeric = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;

/** `SkipCount` and `MaxResultCount` of every list operation (API.md §1). */
export class PagedRequestDto {
  /** Number of items to skip. */
  @ApiPropertyOptional({ default: 0, minimum: 0, maximum: MAX_SKIP_COUNT })
  @IsOptionalNotNull()
  @Transform(toIntIfNumeric)
  @IsInt()
  @Min(0)
  @Max(MAX_SKIP_COUNT)
  skipCount: number = 0;

  /** Page size, at most 1000. */
  @ApiPropertyOptional({ default: 20, minimum: 1, maximum: MAX_PAGE_SIZE })
  @IsOptionalNotNull()
  @Transform(toIntIfNumeric)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  maxResultCount: number = 20;
}

/** Paging plus `Sorting` (`"<Field> ASC|DESC"`); each operation whitelists its fields with {@link parseSorting}. */
export class SortedPagedRequestDto extends PagedRequestDto {
  /** `"<Field> ASC|DESC"`, field names case-insensitive. */
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(100)
  sorting?: string;
}
