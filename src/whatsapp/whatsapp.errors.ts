import { ConflictError, DomainError, ErrorKind, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

/** A request field naming the template, when the template is a setting (a channel's) rather than a send's: the error names it. */
const namingField = (message: string, member: string | undefined) =>
  member ? { validationErrors: [{ message, members: [member] }] } : undefined;

export const TemplateNotFound = (name: string, language: string, member?: string) => {
  const message = `No approved template '${name}' in language '${language}' on this channel.`;
  return new ValidationError('WhatsApp:TemplateNotFound', message, namingField(message, member));
};
/** A stored template Meta has not approved (or no longer approves): `status` says where it stands. */
export const TemplateNotApproved = (name: string, language: string, status: string, member?: string) => {
  const message = `Template '${name}' (${language}) is ${status}, not APPROVED: it cannot be sent until Meta approves it again.`;
  return new ValidationError('WhatsApp:TemplateNotApproved', message, namingField(message, member));
};
/** No template of this name on the channel (Delete Template). */
export const TemplateNameNotFound = (name: string) =>
  new NotFoundError('WhatsApp:UnknownTemplateName', `No template named '${name}' on this channel.`);
/** Create Template with both or neither of `components` and `libraryTemplateName`. */
export const TemplateSourceRequired = () => {
  const message = 'Send either components or libraryTemplateName, not both.';
  return new ValidationError('WhatsApp:InvalidTemplate', message, {
    validationErrors: [{ message, members: ['components', 'libraryTemplateName'] }],
  });
};
/** The WhatsApp Business Account refused the template; `message` is Meta's reason. */
export const TemplateRefused = (message: string) => new ValidationError('WhatsApp:TemplateRefused', message);
/** `component` is Header, Body or Buttons[i]: the message names it. */
export const TemplateParametersMismatch = (component: string, message: string) =>
  new ValidationError('WhatsApp:TemplateParametersMismatch', `${component}: ${message}`, {
    validationErrors: [{ message, members: [`parameters.${component}`] }],
  });
export const ServiceWindowExpired = () =>
  new ValidationError(
    'WhatsApp:ServiceWindowExpired',
    'The 24-hour service window is closed: the contact has not written on this channel in the last 24 hours. Send an approved template instead.',
  );
/** An operator's sandbox-only action on a channel of another provider; `message` says which action. */
export const NotASandboxChannel = (message: string) => new ValidationError('WhatsApp:NotASandboxChannel', message);
export const NotACloudChannel = () =>
  new ValidationError('WhatsApp:NotACloudChannel', 'Only cloud-api channels sync templates from their WhatsApp Business Account.');
export const InvalidTemplate = () => new ValidationError('WhatsApp:InvalidTemplate', 'A template needs a BODY component with text.');
export const DuplicateTemplate = (name: string, language: string) =>
  new ConflictError('WhatsApp:DuplicateTemplate', `Template '${name}' (${language}) already exists on this channel.`);
export const VerificationFailed = () =>
  new DomainError('WhatsApp:VerificationFailed', 'hub.verify_token does not match this channel.', ErrorKind.Forbidden);
export const InvalidSignature = () =>
  new DomainError('WhatsApp:InvalidSignature', 'X-Hub-Signature-256 does not match the body.', ErrorKind.Unauthenticated);
/** A `messageId` that is no conversation event of the workspace. */
export const MessageNotFound = () => new NotFoundError('WhatsApp:MessageNotFound', 'The message was not found.');
/** A `messageId` of the workspace that is not a message the operation can act on; `message` says why. */
export const InvalidMessageId = (message: string, members: string[] = ['messageId']) =>
  new ValidationError('WhatsApp:InvalidMessageId', message, { validationErrors: [{ message, members }] });
/** A `mediaId` whose file is of another kind than the send takes. */
export const MediaTypeMismatch = (expected: string, actual: string) => {
  const message = `mediaId must be an uploaded ${expected} file; it is ${/^[aeiou]/.test(actual) ? 'an' : 'a'} ${actual} file.`;
  return new ValidationError('WhatsApp:MediaTypeMismatch', message, { validationErrors: [{ message, members: ['mediaId'] }] });
};

/** A send whose field breaks a rule the DTO cannot express: a 400 naming `member`. */
export const InvalidSendField = (code: string, message: string, member: string) =>
  new ValidationError(code, message, { validationErrors: [{ message, members: [member] }] });
export const DuplicateButtonIds = () => InvalidSendField('WhatsApp:DuplicateButtonIds', 'Button ids must be unique.', 'buttons');
export const TemplateSyncFailed = (message: string) => new ValidationError('WhatsApp:TemplateSyncFailed', message);
/** An injected sandbox message without what its type needs; `members` names the fields. */
export const InvalidSandboxMessage = (message: string, members: string[]) =>
  new ValidationError('WhatsApp:InvalidSandboxMessage', message, { validationErrors: [{ message, members }] });
