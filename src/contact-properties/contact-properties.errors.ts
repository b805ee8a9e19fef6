import { ConflictError, NotFoundError, ValidationError } from '../common/errors/domain-error.js';

export const PropertyNotFound = (id: string) =>
  new NotFoundError('ContactProperties:PropertyNotFound', `Contact property '${id}' was not found.`);
export const PropertyNameTaken = (name: string) =>
  new ConflictError('ContactProperties:DuplicateName', `A contact property named '${name}' already exists.`);
export const InvalidPropertyDefinition = (message: string, member: string) =>
  new ValidationError('ContactProperties:InvalidDefinition', message, { validationErrors: [{ message, members: [member] }] });
export const PropertyTypeImmutable = () =>
  new ValidationError('ContactProperties:TypeImmutable', 'The type of a contact property cannot change.', {
    validationErrors: [{ message: 'The type of a contact property cannot change.', members: ['type'] }],
  });
export const SelectOptionInUse = (options: string[], contacts: number) =>
  new ValidationError(
    'ContactProperties:OptionInUse',
    `Cannot remove option${options.length > 1 ? 's' : ''} ${options.map((o) => `'${o}'`).join(', ')}: ${contacts} contact${contacts === 1 ? ' holds' : 's hold'} ${options.length > 1 ? 'them' : 'it'}.`,
  );
