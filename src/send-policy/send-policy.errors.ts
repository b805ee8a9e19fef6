import { ValidationError } from '../common/errors/domain-error.js';

/** A stop or start word list the policy cannot take; `member` names the field. */
export const InvalidKeywords = (message: string, member: string) =>
  new ValidationError('Policy:InvalidKeywords', message, { validationErrors: [{ message, members: [member] }] });
