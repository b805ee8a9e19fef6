import { ConflictError, NotFoundError } from '../common/errors/domain-error.js';

export const TagNotFound = (id: string) => new NotFoundError('Tags:TagNotFound', `Tag '${id}' was not found.`);
export const TagNameTaken = (name: string) => new ConflictError('Tags:DuplicateName', `A tag named '${name}' already exists.`);
export const TagInUse = (name: string, conversations: number) =>
  new ConflictError(
    'Tags:TagInUse',
    `Tag '${name}' is on ${conversations} conversation${conversations === 1 ? '' : 's'}; remove it from them first.`,
  );
