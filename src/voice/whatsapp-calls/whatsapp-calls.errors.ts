import { DomainError, ErrorKind, ValidationError } from '../../common/errors/domain-error.js';

/** A calling setting that is well-formed but makes no sense (an unknown time zone, a day that closes before it opens). */
export const CallingSettingsInvalid = (message: string, member: string) =>
  new ValidationError('WhatsApp:CallingSettingsInvalid', message, { validationErrors: [{ message, members: [member] }] });
/** Meta refused the number's calling settings; the message carries Meta's words. */
export const CallingSettingsRefused = (message: string) => new ValidationError('WhatsApp:CallingSettingsRefused', message);
/** The Graph API could not be reached or failed on its side: nothing was changed; try again. */
export const GraphUnavailable = (message: string) =>
  new DomainError('WhatsApp:GraphUnavailable', message, ErrorKind.Unavailable, { headers: { 'Retry-After': '30' } });
