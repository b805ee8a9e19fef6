import { ValidationError } from '../common/errors/domain-error.js';

export const TemplateNotFound = (name: string, language: string) =>
  new ValidationError('WhatsApp:TemplateNotFound', `No approved template '${name}' in language '${language}' on this channel.`);
/** `component` is Header, Body or Buttons[i]: the message names it. */
export const TemplateParametersMismatch = (component: string, message: string) =>
  new ValidationError('WhatsApp:TemplateParametersMismatch', `${component}: ${message}`, {
    validationErrors: [{ message, members: [`parameters.${component}`] }],
  });
