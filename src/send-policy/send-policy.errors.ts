import { ConflictError, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

/** A stop or start word list the policy cannot take; `member` names the field. */
export const InvalidKeywords = (message: string, member: string) =>
  new ValidationError('Policy:InvalidKeywords', message, { validationErrors: [{ message, members: [member] }] });

/** Quiet hours, a time zone setting or a frequency cap the policy cannot take; `member` names the field. */
export const InvalidSendPolicy = (message: string, member: string) =>
  new ValidationError('Policy:InvalidSendPolicy', message, { validationErrors: [{ message, members: [member] }] });

/** A `sendAt` in the past or too far ahead. */
export const InvalidSendAt = (message: string) =>
  new ValidationError('Policy:InvalidSendAt', message, { validationErrors: [{ message, members: ['sendAt'] }] });

/** A marketing template beyond the workspace's frequency cap for this contact. */
export const FrequencyCapReached = (recipient: string, cap: { count: number; days: number }) =>
  new ValidationError(
    'Policy:FrequencyCapReached',
    `${recipient} has already been sent ${cap.count} marketing message(s) in the last ${cap.days} day(s), the most the workspace's frequency cap allows.`,
  );

/** No scheduled message or call with this id in the workspace. */
export const ScheduledItemNotFound = (id: string) =>
  new NotFoundError('Policy:ScheduledItemNotFound', `No scheduled message or call '${id}' was found.`);

/** The message or call has left already (or was never scheduled, or was cancelled): nothing to cancel. */
export const ScheduledItemNotCancellable = (id: string, why: string) =>
  new ConflictError('Policy:ScheduledItemNotCancellable', `'${id}' cannot be cancelled: ${why}.`);

/** A MARKETING template to a contact opted out of WhatsApp marketing messages (API.md §13). */
export const RecipientOptedOut = (recipient: string) =>
  new ValidationError(
    'WhatsApp:RecipientOptedOut',
    `${recipient} has opted out of WhatsApp marketing messages: a MARKETING template is not sent to them (UTILITY and AUTHENTICATION templates are).`,
  );
