import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn } from 'class-validator';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { CONSENT_FIELDS, CONSENT_SOURCES, CONSENT_STATUSES, type ConsentKind, type ConsentSource, type ConsentStatus } from '../consent.js';
import type { Contact } from '../contact.entity.js';
import type { CallPermissionState } from '../whatsapp-call-permissions.service.js';

const STATUS_MESSAGE = `$property must be one of ${CONSENT_STATUSES.join(', ')}`;
const SOURCE_MESSAGE = `$property must be one of ${CONSENT_SOURCES.join(', ')}`;

/** One consent of a contact: while Unknown, `at` and `source` are null. */
export class ConsentStateDto {
  @ApiProperty({ enum: CONSENT_STATUSES, enumName: 'ConsentStatus' }) status: ConsentStatus;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601 UTC: when the status was set.' }) at: string | null;
  @ApiProperty({ type: String, enum: CONSENT_SOURCES, nullable: true, description: 'How it was set; null while Unknown.' })
  source: ConsentSource | null;
}

/** A WhatsApp user's permission for the workspace's numbers to call them (API.md §15). */
export class WhatsAppCallPermissionDto {
  @ApiProperty({
    enum: ['Unknown', 'Granted', 'Denied', 'Expired'],
    description:
      "What the user answered a call permission request (or granted by calling first): Granted by any of the workspace's numbers counts; Expired: a temporary permission ran out.",
  })
  status: 'Unknown' | 'Granted' | 'Denied' | 'Expired';
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'ISO 8601 UTC: when a temporary permission ends; null when permanent or none.',
  })
  expiresAt: string | null;
  /** The user granted it for good (until they revoke it in WhatsApp). */
  permanent: boolean;

  static from(state: CallPermissionState): WhatsAppCallPermissionDto {
    return { status: state.status, expiresAt: formatTimestamp(state.expiresAt, TimestampFormat.utc), permanent: state.permanent };
  }
}

/** A contact's consents (API.md §13). */
export class ContactConsentDto {
  /** Consent to WhatsApp marketing messages (MARKETING templates). */
  whatsAppMarketing: ConsentStateDto;
  /** Consent to calls (Outbound IVR). */
  calls: ConsentStateDto;
  /** WhatsApp calls: the permission the user gave the workspace's WhatsApp numbers to call them (read-only: only the user grants it). */
  whatsAppCalls: WhatsAppCallPermissionDto;

  static from(contact: Contact, whatsAppCalls: CallPermissionState): ContactConsentDto {
    const state = (kind: ConsentKind): ConsentStateDto => {
      const fields = CONSENT_FIELDS[kind];
      const status = contact[fields.status] ?? 'Unknown';
      if (status === 'Unknown') return { status, at: null, source: null };
      return { status, at: formatTimestamp(contact[fields.at], TimestampFormat.utc), source: contact[fields.source] ?? null };
    };
    return {
      whatsAppMarketing: state('whatsAppMarketing'),
      calls: state('calls'),
      whatsAppCalls: WhatsAppCallPermissionDto.from(whatsAppCalls),
    };
  }
}

/** A consent to set: its status and how it was given (Api when left out). */
export class SetConsentStateDto {
  @ApiProperty({ enum: CONSENT_STATUSES, enumName: 'ConsentStatus' })
  @IsIn(CONSENT_STATUSES, { message: STATUS_MESSAGE })
  status: ConsentStatus;
  @ApiProperty({ enum: CONSENT_SOURCES, enumName: 'ConsentSource', required: false, description: 'How it was given; Api by default.' })
  @IsOptionalNotNull()
  @IsIn(CONSENT_SOURCES, { message: SOURCE_MESSAGE })
  source?: ConsentSource;
}

/** Update Contact Consent: only the consents present change. */
export class UpdateContactConsentDto {
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => SetConsentStateDto) whatsAppMarketing?: SetConsentStateDto;
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => SetConsentStateDto) calls?: SetConsentStateDto;
}

/** Search Contacts' consent filter: contacts whose consents have these statuses. */
export class ConsentFilterDto {
  @ApiProperty({ enum: CONSENT_STATUSES, enumName: 'ConsentStatus', required: false })
  @IsOptionalNotNull()
  @IsIn(CONSENT_STATUSES, { message: STATUS_MESSAGE })
  whatsAppMarketing?: ConsentStatus;
  @ApiProperty({ enum: CONSENT_STATUSES, enumName: 'ConsentStatus', required: false })
  @IsOptionalNotNull()
  @IsIn(CONSENT_STATUSES, { message: STATUS_MESSAGE })
  calls?: ConsentStatus;
}
