import { Type } from 'class-transformer';
import { Allow, ArrayMaxSize, IsArray, IsString, IsUUID, MaxLength } from 'class-validator';
import { ApiProperty } from '@nestjs/swagger';
import { SortedPagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { IntEnumProperty, IsIntEnum } from '../../openapi/int-enum.js';
import { WhatsAppUserIdField } from '../../common/phone/whatsapp-user-id.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { ConsentFilterDto } from './consent.dto.js';

export enum SearchOperator {
  Equals = 1,
  NotEquals = 2,
  Contains = 3,
  StartsWith = 4,
  GreaterThan = 5,
  GreaterThanOrEqual = 6,
  LessThan = 7,
  LessThanOrEqual = 8,
  HasValue = 9,
  HasNoValue = 10,
}

export class CustomPropertyFilterDto {
  @IsUUID() propertyDefinitionId: string;
  @IntEnumProperty(SearchOperator, 'SearchOperator') @IsIntEnum(SearchOperator) operator: SearchOperator;
  /** Compared as the property's type; not used by HasValue and HasNoValue. */
  @ApiProperty({
    required: false,
    oneOf: [
      { type: 'string', nullable: true },
      { type: 'number', nullable: true },
    ],
  })
  @Allow()
  value?: unknown;
}

export class SearchContactsDto extends SortedPagedRequestDto {
  /** Contains, in name, phone number or email (case-insensitive). */
  @IsOptionalNotNull() @IsString() @MaxLength(200) filter?: string;
  /** Exactly this WhatsApp business-scoped user id. */
  @IsOptionalNotNull() @WhatsAppUserIdField() whatsAppUserId?: string;
  /** Contacts with a conversation carrying any of these tags. */
  @IsOptionalNotNull() @IsArray() @ArrayMaxSize(100) @IsUUID('all', { each: true }) tagIds?: string[];
  /** AND-ed. */
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNestedObject({ each: true })
  @Type(() => CustomPropertyFilterDto)
  customPropertyFilters?: CustomPropertyFilterDto[];
  /** Contacts whose consents (API.md §13) have these statuses. */
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => ConsentFilterDto) consent?: ConsentFilterDto;
}
