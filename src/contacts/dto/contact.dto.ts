import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { Allow, IsObject, IsOptional, IsString, MaxLength, MinLength, ValidateIf } from 'class-validator';
import { PhoneNumberField, PhoneNumberFilterField } from '../../common/phone/phone-number.js';
import { WhatsAppUserIdField } from '../../common/phone/whatsapp-user-id.js';
import { SortedPagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import { OptionalNullable } from '../../common/validation/optional-nullable.decorator.js';
import { IntEnumProperty, IsIntEnum } from '../../openapi/int-enum.js';
import type { ContactPropertyDefinition } from '../../contact-properties/contact-property-definition.entity.js';
import { ContactPropertyType } from '../../contact-properties/contact-property-type.js';
import type { ContactHistoryEntry } from '../contact-history-entry.entity.js';
import type { ContactNote } from '../contact-note.entity.js';
import type { ContactPropertyValue } from '../contact-property-value.entity.js';
import { type Contact, ContactType } from '../contact.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { IsEmail } from '../../common/validation/is-email.js';

const emptyToNull = ({ value }: { value: unknown }) => (value === '' ? null : value);

export class CreateContactDto {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  /** Required unless `whatsAppUserId` is given. */
  @IsOptionalNotNull() @PhoneNumberField() phoneNumber?: string;
  /** The contact's WhatsApp business-scoped user id (BSUID); required unless `phoneNumber` is given. */
  @IsOptionalNotNull() @WhatsAppUserIdField() whatsAppUserId?: string;
  @OptionalNullable() @Transform(emptyToNull) @IsEmail() @MaxLength(320) email?: string | null;
  @OptionalNullable() @IsString() @MaxLength(200) company?: string | null;
  @OptionalNullable() @IsString() @MaxLength(200) position?: string | null;
  @IsOptionalNotNull() @IntEnumProperty(ContactType, 'ContactType') @IsIntEnum(ContactType) contactType?: ContactType;
  @ApiProperty({ required: false, nullable: true, type: Object, additionalProperties: true, description: 'A free JSON object.' })
  @OptionalNullable()
  @IsObject()
  customFields?: Record<string, unknown> | null;
  /** Appended to the contact's notes. */
  @IsOptionalNotNull() @IsString() @MinLength(1) @MaxLength(4000) note?: string;
}

/** Same fields as create, all optional: only fields present in the body change. */
export class UpdateContactDto {
  @IsOptionalNotNull() @IsString() @MinLength(1) @MaxLength(200) name?: string;
  @IsOptionalNotNull() @PhoneNumberField() phoneNumber?: string;
  /** The contact's WhatsApp business-scoped user id (BSUID). */
  @IsOptionalNotNull() @WhatsAppUserIdField() whatsAppUserId?: string;
  @IsOptional() @Transform(emptyToNull) @ValidateIf((_, v) => v !== null) @IsEmail() @MaxLength(320) email?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(200) company?: string | null;
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() @MaxLength(200) position?: string | null;
  @IsOptionalNotNull() @IntEnumProperty(ContactType, 'ContactType') @IsIntEnum(ContactType) contactType?: ContactType;
  @ApiProperty({ required: false, nullable: true, type: Object, additionalProperties: true })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsObject()
  customFields?: Record<string, unknown> | null;
  /** Appended to the contact's notes. */
  @IsOptionalNotNull() @IsString() @MinLength(1) @MaxLength(4000) note?: string;
}

export class GetContactsQueryDto extends SortedPagedRequestDto {
  /** Contains, in name, phone number or email (case-insensitive). */
  @IsOptionalNotNull() @IsString() @MaxLength(200) filter?: string;
  /** Contains, in the phone number (digits). */
  @IsOptionalNotNull() @PhoneNumberFilterField() phoneNumber?: string;
  /** Contains, in the name (case-insensitive). */
  @IsOptionalNotNull() @IsString() @MaxLength(200) name?: string;
  /** Exactly this WhatsApp business-scoped user id. */
  @IsOptionalNotNull() @WhatsAppUserIdField() whatsAppUserId?: string;
}

export class ContactNoteDto {
  id: string;
  contactId: string;
  text: string;
  creatorName: string | null;
  /** ISO 8601 without offset (UTC). */
  creationTime: string;
  creatorId: string | null;
  lastModificationTime: string | null;
  lastModifierId: string | null;

  static from(note: ContactNote): ContactNoteDto {
    return {
      id: note.id,
      contactId: note.contactId,
      text: note.text,
      creatorName: note.creatorName,
      creationTime: TimestampFormat.noOffset(note.creationTime),
      creatorId: note.creatorId,
      lastModificationTime: TimestampFormat.noOffset(note.lastModificationTime),
      lastModifierId: note.lastModifierId,
    };
  }
}

/** An element of Contact.customProperties. */
export class ContactCustomPropertyDto {
  propertyDefinitionId: string;
  propertyName: string;
  @IntEnumProperty(ContactPropertyType, 'ContactPropertyType') propertyType: ContactPropertyType;
  @ApiProperty({ type: String, nullable: true }) textValue: string | null;
  @ApiProperty({ type: Number, nullable: true }) numberValue: number | null;
  /** ISO 8601 without offset (UTC). */
  @ApiProperty({ type: String, nullable: true }) dateValue: string | null;
  @ApiProperty({ type: String, nullable: true }) selectValue: string | null;

  static from(value: ContactPropertyValue, definition: ContactPropertyDefinition): ContactCustomPropertyDto {
    return {
      propertyDefinitionId: definition.id,
      propertyName: definition.name,
      propertyType: definition.type,
      textValue: value.textValue,
      numberValue: value.numberValue === null ? null : Number(value.numberValue),
      dateValue: formatTimestamp(value.dateValue, TimestampFormat.noOffset),
      selectValue: value.selectValue,
    };
  }
}

/** The specification's Contact. */
export class ContactDto {
  id: string;
  workspaceId: string;
  name: string;
  /** E.164 with a leading +; null for a WhatsApp user known only by their business-scoped user id. */
  @ApiProperty({ type: String, nullable: true }) phoneNumber: string | null;
  /** WhatsApp business-scoped user id (BSUID). */
  @ApiProperty({ type: String, nullable: true }) whatsAppUserId: string | null;
  /** WhatsApp parent BSUID (shared across a business's portfolios). */
  @ApiProperty({ type: String, nullable: true }) whatsAppParentUserId: string | null;
  /** WhatsApp username, as last seen. */
  @ApiProperty({ type: String, nullable: true }) whatsAppUsername: string | null;
  @IntEnumProperty(ContactType, 'ContactType') contactType: ContactType;
  @ApiProperty({ type: String, nullable: true }) email: string | null;
  @ApiProperty({ type: String, nullable: true }) company: string | null;
  @ApiProperty({ type: String, nullable: true }) position: string | null;
  @ApiProperty({ type: 'object', nullable: true, additionalProperties: true }) customFields: Record<string, unknown> | null;
  notes: ContactNoteDto[];
  customProperties: ContactCustomPropertyDto[];
  /** ISO 8601 without offset (UTC). */
  lastModificationTime: string;
  @ApiProperty({ type: String, nullable: true }) lastModifierId: string | null;
  /** ISO 8601 without offset (UTC). */
  creationTime: string;
  @ApiProperty({ type: String, nullable: true }) creatorId: string | null;

  /** The contact with its notes and its custom property values (each with its definition, in the order to show). */
  static from(
    contact: Contact,
    related: { notes: ContactNote[]; customProperties: Array<{ value: ContactPropertyValue; definition: ContactPropertyDefinition }> },
  ): ContactDto {
    return {
      id: contact.id,
      workspaceId: contact.workspaceId,
      name: contact.name,
      phoneNumber: contact.phoneNumber,
      whatsAppUserId: contact.whatsAppUserId,
      whatsAppParentUserId: contact.whatsAppParentUserId,
      whatsAppUsername: contact.whatsAppUsername,
      contactType: contact.contactType,
      email: contact.email,
      company: contact.company,
      position: contact.position,
      customFields: contact.customFields,
      notes: related.notes.map(ContactNoteDto.from),
      customProperties: related.customProperties.map(({ value, definition }) => ContactCustomPropertyDto.from(value, definition)),
      lastModificationTime: TimestampFormat.noOffset(contact.lastModificationTime),
      lastModifierId: contact.lastModifierId,
      creationTime: TimestampFormat.noOffset(contact.creationTime),
      creatorId: contact.creatorId,
    };
  }
}

export class SetPropertyValueDto {
  @ApiProperty({
    oneOf: [
      { type: 'string', nullable: true },
      { type: 'number', nullable: true },
    ],
    description:
      'Text: a string. Number: a number or numeric string. Select: one of the selectOptions. Date: ISO 8601 date or date-time. null removes the value.',
  })
  @Allow()
  value: unknown;
}

export class ContactHistoryEntryDto {
  id: string;
  /** The custom property's name, or Name, PhoneNumber, WhatsAppUserId, Email, Company, Position, ContactType, or MergedContact (a contact merged into this one). */
  propertyName: string;
  @ApiProperty({ type: String, nullable: true, description: 'Null for built-in fields.' }) propertyDefinitionId: string | null;
  @ApiProperty({ type: String, nullable: true }) oldValue: string | null;
  @ApiProperty({ type: String, nullable: true }) newValue: string | null;
  /** ISO 8601 without offset (UTC). */
  creationTime: string;
  @ApiProperty({ type: String, nullable: true }) creatorId: string | null;

  static from(entry: ContactHistoryEntry): ContactHistoryEntryDto {
    return {
      id: entry.id,
      propertyName: entry.propertyName,
      propertyDefinitionId: entry.propertyDefinitionId,
      oldValue: entry.oldValue,
      newValue: entry.newValue,
      creationTime: TimestampFormat.noOffset(entry.creationTime),
      creatorId: entry.creatorId,
    };
  }
}
