import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsUUID, registerDecorator, ValidateIf, type ValidationArguments } from 'class-validator';
import { PhoneNumberOrWhatsAppUserIdField } from '../../common/phone/whatsapp-user-id.js';

/** Who a send goes to: a phone number or a BSUID (`toNumber`), or a contact of the workspace (`contactId`); exactly one. */
export interface SendRecipient {
  toNumber?: string;
  contactId?: string;
}

const neither = (o: SendRecipient) => o.toNumber === undefined && o.contactId === undefined;

/** Fails when `other` is given too: the two fields are alternatives. */
function NotWith(other: keyof SendRecipient): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'notWith',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `Give either ${other} or ${String(propertyName)}, not both.` },
      validator: { validate: (_value: unknown, args: ValidationArguments) => (args.object as SendRecipient)[other] === undefined },
    });
}

/** `toNumber`: the recipient's phone number (digits, `+`, formatted: normalised) or BSUID; required unless `contactId` is given. */
export function ToNumberField() {
  return applyDecorators(
    ValidateIf((o: SendRecipient) => o.toNumber !== undefined || neither(o)),
    IsDefined({ message: 'toNumber or contactId is required' }),
    PhoneNumberOrWhatsAppUserIdField(
      'Recipient phone number (digits only or with a leading +) or WhatsApp business-scoped user id (US.13491208655302741918). Exactly one of toNumber and contactId.',
      false,
    ),
  );
}

/** `contactId`: a contact of the caller's workspace, in place of `toNumber` (its phone number, else its BSUID, is used). */
export function ContactIdField() {
  return applyDecorators(
    ApiProperty({
      required: false,
      type: String,
      format: 'uuid',
      description: 'A contact of the workspace, in place of toNumber: its phone number is used, else its WhatsApp user id.',
    }),
    ValidateIf((o: SendRecipient) => o.contactId !== undefined),
    IsUUID(),
    NotWith('toNumber'),
  );
}
