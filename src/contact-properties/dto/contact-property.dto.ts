import { applyDecorators } from '@nestjs/common';
import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform, Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { OptionalNullable } from '../../common/validation/optional-nullable.decorator.js';
import { IntEnumProperty, IsIntEnum } from '../../openapi/int-enum.js';
import { ContactPropertyDefinition, ContactPropertyType } from '../contact-property-definition.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';

/** `"Select"` or `3`, case-insensitive names. */
const toPropertyType = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const match = Object.entries(ContactPropertyType).find(([name]) => name.toLowerCase() === value.trim().toLowerCase());
  return match ? match[1] : /^\d+$/.test(value.trim()) ? Number(value) : value;
};
/** Options as strings or `{ value, color }` (read from the raw input: @Type has already run on `value`). */
const toOptions = ({ obj, key }: { obj: Record<string, unknown>; key: string }) => {
  const raw = obj[key];
  if (!Array.isArray(raw)) return raw;
  return raw.map((item) =>
    typeof item === 'string' ? plainToInstance(SelectOptionDto, { value: item, color: null }) : plainToInstance(SelectOptionDto, item),
  );
};

export class SelectOptionDto {
  @IsString() @MinLength(1) @MaxLength(100) value: string;
  @OptionalNullable() @IsString() @Matches(/^#?[0-9A-Za-z]{1,20}$/) color?: string | null;
}

/** `selectOptions` of create and update: strings or `{ value, color }`, at most 200. */
const SelectOptionsField = () =>
  applyDecorators(
    ApiProperty({
      required: false,
      description: 'Strings or { value, color }',
      type: 'array',
      items: { oneOf: [{ type: 'string', example: 'Lead' }, { $ref: getSchemaPath(SelectOptionDto) }] },
    }),
    IsOptionalNotNull(),
    Transform(toOptions),
    IsArray(),
    ArrayMaxSize(200),
    ValidateNestedObject({ each: true }),
    Type(() => SelectOptionDto),
  );

export class CreateContactPropertyDto {
  @IsString() @MinLength(1) @MaxLength(100) name: string;
  @ApiProperty({
    oneOf: [
      { type: 'integer', enum: [1, 2, 3, 4] },
      { type: 'string', enum: ['Text', 'Number', 'Select', 'Date'] },
    ],
    description: '1 Text, 2 Number, 3 Select, 4 Date (or the name)',
  })
  @Transform(toPropertyType)
  @IsIntEnum(ContactPropertyType, { message: 'type must be one of 1 Text, 2 Number, 3 Select, 4 Date' })
  type: ContactPropertyType;
  @IsOptionalNotNull() @IsBoolean() isRequired?: boolean;
  @SelectOptionsField()
  selectOptions?: SelectOptionDto[];
}

export class UpdateContactPropertyDto {
  @IsOptionalNotNull() @IsString() @MinLength(1) @MaxLength(100) name?: string;
  /** Cannot change; sending a different type is a 400. */
  @ApiProperty({
    required: false,
    oneOf: [
      { type: 'integer', enum: [1, 2, 3, 4] },
      { type: 'string', enum: ['Text', 'Number', 'Select', 'Date'] },
    ],
  })
  @IsOptionalNotNull()
  @Transform(toPropertyType)
  @IsIntEnum(ContactPropertyType)
  type?: ContactPropertyType;
  @IsOptionalNotNull() @IsBoolean() isRequired?: boolean;
  @SelectOptionsField()
  selectOptions?: SelectOptionDto[];
}

export class SelectOptionDetailDto {
  value: string;
  color: string | null;
}

export class ContactPropertyDefinitionDto {
  id: string;
  workspaceId: string;
  name: string;
  key: string;
  @IntEnumProperty(ContactPropertyType, 'ContactPropertyType') type: ContactPropertyType;
  isRequired: boolean;
  selectOptions: string[];
  selectOptionDetails: SelectOptionDetailDto[];
  /** ISO 8601 without offset (UTC). */
  creationTime: string;
  creatorId: string | null;
  /** ISO 8601 without offset (UTC). */
  lastModificationTime: string | null;
  lastModifierId: string | null;

  static from(definition: ContactPropertyDefinition): ContactPropertyDefinitionDto {
    return {
      id: definition.id,
      workspaceId: definition.workspaceId,
      name: definition.name,
      key: definition.key,
      type: definition.type,
      isRequired: definition.isRequired,
      selectOptions: definition.selectOptions.map((o) => o.value),
      selectOptionDetails: definition.selectOptions.map((o) => ({ value: o.value, color: o.color })),
      creationTime: TimestampFormat.noOffset(definition.creationTime),
      creatorId: definition.creatorId,
      lastModificationTime: TimestampFormat.noOffset(definition.lastModificationTime),
      lastModifierId: definition.lastModifierId,
    };
  }
}
