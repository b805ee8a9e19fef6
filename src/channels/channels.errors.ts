import { NotFoundError, ValidationError } from '../common/errors/domain-error.js';

/** ChannelNotFoundError of the specification: unknown, foreign, or lacking the capability asked for. */
export const ChannelNotFound = (id: string) => new NotFoundError('Channels:ChannelNotFound', `Channel '${id}' was not found.`);
export const ChannelConfigInvalid = (message: string, member: string) =>
  new ValidationError('Channels:InvalidConfiguration', message, { validationErrors: [{ message, members: [member] }] });
