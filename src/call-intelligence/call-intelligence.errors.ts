import { ValidationError } from '../common/errors/domain-error.js';

/** Settings the service cannot use; `member` names the field. */
export const InvalidCallIntelligence = (message: string, member: string) =>
  new ValidationError('CallIntelligence:InvalidSettings', message, { validationErrors: [{ message, members: [member] }] });
