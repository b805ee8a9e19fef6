import { ApiProperty } from '@nestjs/swagger';
import type { ContactPropertyDefinition } from '../../contact-properties/contact-property-definition.entity.js';
import { ContactPropertyType } from '../../contact-properties/contact-property-type.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import { IntEnumProperty } from '../../openapi/int-enum.js';
import type { PropertyValueStatistics } from '../contact-property-values.repository.js';

export class PropertyValueCountDto {
  value: string;
  count: number;
}

/** Contact Properties Statistics. Fields that do not apply to the property's type are null. */
export class ContactPropertyStatisticsDto {
  propertyDefinitionId: string;
  propertyName: string;
  @IntEnumProperty(ContactPropertyType, 'ContactPropertyType') type: ContactPropertyType;
  /** Contacts considered (all of the workspace, or those matching the filters). */
  totalContacts: number;
  withValue: number;
  withoutValue: number;
  /** Select: every option (zeros included); Text: the 20 most frequent values; otherwise empty. */
  values: PropertyValueCountDto[];
  @ApiProperty({ type: Number, nullable: true }) min: number | null;
  @ApiProperty({ type: Number, nullable: true }) max: number | null;
  @ApiProperty({ type: Number, nullable: true }) average: number | null;
  @ApiProperty({ type: Number, nullable: true }) sum: number | null;
  /** ISO 8601 without offset (UTC). */
  @ApiProperty({ type: String, nullable: true }) earliest: string | null;
  @ApiProperty({ type: String, nullable: true }) latest: string | null;

  static from(definition: ContactPropertyDefinition, statistics: PropertyValueStatistics): ContactPropertyStatisticsDto {
    const isNumber = definition.type === ContactPropertyType.Number;
    const isDate = definition.type === ContactPropertyType.Date;
    const counts = new Map(statistics.valueCounts.map((row) => [row.value, row.count]));
    return {
      propertyDefinitionId: definition.id,
      propertyName: definition.name,
      type: definition.type,
      totalContacts: statistics.total,
      withValue: statistics.withValue,
      withoutValue: statistics.total - statistics.withValue,
      values:
        definition.type === ContactPropertyType.Select
          ? definition.selectOptions.map((o) => ({ value: o.value, count: counts.get(o.value) ?? 0 }))
          : statistics.valueCounts,
      min: isNumber ? statistics.min : null,
      max: isNumber ? statistics.max : null,
      average: isNumber ? statistics.average : null,
      sum: isNumber ? statistics.sum : null,
      earliest: isDate ? formatTimestamp(statistics.earliest, TimestampFormat.noOffset) : null,
      latest: isDate ? formatTimestamp(statistics.latest, TimestampFormat.noOffset) : null,
    };
  }
}
