import { ValidationError } from '../common/errors/domain-error.js';

export const TemplateNotFound = (name: string, language: string) =>
  new ValidationError('WhatsApp:TemplateNotFound', `No approved template '${name}' in language '${language}' on this channel.`);
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
