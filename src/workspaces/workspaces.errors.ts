import { ConflictError, NotFoundError } from '../common/errors/domain-error.js';

export const WorkspaceNotFound = (id: string) => new NotFoundError('Workspaces:WorkspaceNotFound', `Workspace '${id}' was not found.`);
export const UserEmailTaken = (email: string) =>
  new ConflictError('Workspaces:UserEmailTaken', `A user with email '${email}' already exists in this workspace.`);
