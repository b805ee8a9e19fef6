import { ConflictError, DomainError, ErrorKind, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

export const OutboundIvrNotFound = (id: string) =>
  new NotFoundError('OutboundIvr:RequestNotFound', `Outbound IVR request '${id}' was not found.`);

export const IvrInvalidRequest = (message: string, members: string[]) =>
  new ValidationError('OutboundIvr:InvalidRequest', message, { validationErrors: [{ message, members }] });

export const IvrAlreadyFinished = (id: string) =>
  new ConflictError('OutboundIvr:AlreadyFinished', `Outbound IVR request '${id}' has already finished; it cannot be cancelled.`);

export const InvalidTwilioSignature = () =>
  new DomainError('Voice:InvalidSignature', 'The X-Twilio-Signature header is missing or does not match.', ErrorKind.Forbidden);

/** The code of {@link IvrPhoneNumberRequired}: a campaign's recipient skipped for it says so. */
export const PHONE_NUMBER_REQUIRED = 'OutboundIvr:PhoneNumberRequired';

/** Calls need a phone number: a destination given as a WhatsApp user id whose contact has none (or no contact has it). */
export const IvrPhoneNumberRequired = (message: string) =>
  new ValidationError(PHONE_NUMBER_REQUIRED, message, { validationErrors: [{ message, members: ['destinationNumber'] }] });

/** A call to a contact opted out of calls (API.md §13: the do-not-call list). */
export const IvrRecipientOptedOut = (phoneNumber: string) =>
  new ValidationError('OutboundIvr:RecipientOptedOut', `${phoneNumber} has opted out of calls: no call is placed to them.`, {
    validationErrors: [{ message: 'the contact has opted out of calls', members: ['destinationNumber'] }],
  });

/** Meta's limit on connected WhatsApp calls to one user in 24 h (API.md §15), enforced before Meta refuses. */
export const IvrConnectedCallsLimit = (userNumber: string) =>
  new DomainError(
    'OutboundIvr:ConnectedCallsLimit',
    `${userNumber} has had as many connected WhatsApp calls from this number in the last 24 hours as Meta allows (100); try later.`,
    ErrorKind.RateLimited,
  );
