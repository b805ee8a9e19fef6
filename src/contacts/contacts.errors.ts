import { ConflictError, DomainError, ErrorKind, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

export const ContactNotFound = (id: string) => new NotFoundError('Contacts:ContactNotFound', `Contact '${id}' was not found.`);
export const PhoneNumberTaken = (phoneNumber: string) =>
  new ConflictError('Contacts:DuplicatePhoneNumber', `A contact with phone number '${phoneNumber}' already exists.`);
/** The specification's message, to the letter. */
export const PropertyRequired = (name: string) => new ValidationError('Contacts:PropertyRequired', `Property '${name}' is required.`);
/** The specification's message, to the letter. */
export const InvalidSelectOption = (value: string, name: string) =>
  new ValidationError('Contacts:InvalidSelectOption', `Invalid select option '${value}' for property '${name}'.`);
export const InvalidPropertyValue = (name: string, expected: string) =>
  new ValidationError('Contacts:InvalidPropertyValue', `The value for property '${name}' must be ${expected}.`, {
    validationErrors: [{ message: `must be ${expected}`, members: ['value'] }],
  });
export const InvalidSearchFilter = (message: string, member: string) =>
  new ValidationError('Contacts:InvalidSearchFilter', message, { validationErrors: [{ message, members: [member] }] });
export const ValueMissing = () =>
  new ValidationError('Contacts:ValueMissing', 'The body must have a value (null removes the property from the contact).', {
    validationErrors: [{ message: 'value is required; null removes it', members: ['value'] }],
  });
export const WhatsAppUserIdTaken = (userId: string) =>
  new ConflictError('Contacts:DuplicateWhatsAppUserId', `A contact with WhatsApp user id '${userId}' already exists.`);
export const IdentityRequired = () =>
  new ValidationError('Contacts:PhoneNumberOrWhatsAppUserIdRequired', 'A contact needs a phoneNumber or a whatsAppUserId.', {
    validationErrors: [{ message: 'phoneNumber or whatsAppUserId is required', members: ['phoneNumber', 'whatsAppUserId'] }],
  });

/** Meta's limits on call permission requests to one WhatsApp user from one number (API.md §15), kept before Meta refuses. */
export const CallPermissionRequestLimit = (userNumber: string, nextAt: Date) =>
  new DomainError(
    'OutboundIvr:CallPermissionRequestLimit',
    `Meta allows call permission requests to a WhatsApp user 1 a day and 2 in 7 days; ${userNumber} has had them. The next one can go at ${nextAt.toISOString()}.`,
    ErrorKind.RateLimited,
  );
