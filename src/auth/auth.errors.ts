import { DomainError, ErrorKind } from '../common/errors/domain-error.js';

const BEARER = { headers: { 'WWW-Authenticate': 'Bearer' } };

export const BearerTokenRequired = () =>
  new DomainError('Auth:Unauthorized', 'A valid bearer token is required.', ErrorKind.Unauthenticated, BEARER);
export const BearerTokenExpired = () =>
  new DomainError('Auth:TokenExpired', 'The access token has expired.', ErrorKind.Unauthenticated, BEARER);
export const BearerTokenRevoked = () =>
  new DomainError('Auth:TokenRevoked', 'The access token has been revoked.', ErrorKind.Unauthenticated, BEARER);
export const InsufficientScope = (scope: string) =>
  new DomainError('Auth:InsufficientScope', `The token lacks the '${scope}' scope.`, ErrorKind.Forbidden);
