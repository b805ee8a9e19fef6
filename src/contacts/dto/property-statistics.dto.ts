import { ApiProperty } from '@nestjs/swagger';
import { ContactPropertyType } from '../../contact-properties/contact-property-definition.entity.js';
import { IntEnumProperty } from '../../openapi/int-enum.js';

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
}
