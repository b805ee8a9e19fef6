import { DomainError, ErrorKind, NotFoundError } from '../common/errors/domain-error.js';

/** Admin routes answer 404 while no ADMIN_API_KEY is set: they do not exist then. */
export const AdminApiOff = () => new NotFoundError('Request:NotFound', 'Not found.');
export const AdminKeyRequired = () =>
  new DomainError('Admin:Unauthorized', 'The admin API key is required.', ErrorKind.Unauthenticated, {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
