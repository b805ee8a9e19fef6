import { Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { AppConfig } from '../config/app-config.js';
import { isUuid } from '../common/id.js';
import { BearerTokenExpired, BearerTokenRequired, BearerTokenRevoked, InsufficientScope } from './auth.errors.js';
import type { Principal } from './principal.js';
import { ServiceAccountStatus } from './service-account-status.js';

interface AccessTokenClaims {
  sub: string;
  workspace_id: string;
  scope: string;
  name?: string;
}

/**
 * Claims as Service Login writes them. A token signed with the right key but other claims (no
 * scope, a numeric one, a sub that is not a service account id) is as invalid as a forged one.
 */
function isAccessTokenClaims(claims: unknown): claims is AccessTokenClaims {
  if (typeof claims !== 'object' || claims === null) return false;
  const { sub, workspace_id: workspaceId, scope, name } = claims as Record<string, unknown>;
  return (
    typeof sub === 'string' &&
    isUuid(sub) &&
    typeof workspaceId === 'string' &&
    isUuid(workspaceId) &&
    typeof scope === 'string' &&
    (name === undefined || typeof name === 'string')
  );
}

/** The token of an `Authorization: Bearer <token>` header (the scheme in any case), else undefined. */
export function bearerTokenOf(authorization: string | undefined): string | undefined {
  const match = authorization === undefined ? null : /^(\S+)\s+(\S+)/.exec(authorization);
  return match && match[1].toLowerCase() === 'bearer' ? match[2] : undefined;
}

/**
 * Turns a bearer access token into the caller: the signature (HS256), issuer and expiry checked by
 * jsonwebtoken, the claims' shape, the service account still active, the API scope granted.
 * Every failure is the error envelope's 401 (403 for the scope), never a library's message.
 */
@Injectable()
export class AccessTokenVerifier {
  constructor(
    private readonly config: AppConfig,
    private readonly status: ServiceAccountStatus,
  ) {}

  async principalOf(authorization: string | undefined): Promise<Principal> {
    const token = bearerTokenOf(authorization);
    if (token === undefined) throw BearerTokenRequired();
    const claims = this.verifiedClaims(token);
    if (!(await this.status.isActive(claims.sub, claims.workspace_id))) throw BearerTokenRevoked();
    const scopes = claims.scope.split(' ');
    if (!scopes.includes(this.config.auth.apiScope)) throw InsufficientScope(this.config.auth.apiScope);
    return { serviceAccountId: claims.sub, workspaceId: claims.workspace_id, scopes, name: claims.name };
  }

  private verifiedClaims(token: string): AccessTokenClaims {
    let claims: unknown;
    try {
      claims = jwt.verify(token, this.config.auth.jwtKey, { algorithms: ['HS256'], issuer: 'messaging-service' });
    } catch (err) {
      // The expiry is checked after the signature: an expired token was one of ours.
      throw err instanceof jwt.TokenExpiredError ? BearerTokenExpired() : BearerTokenRequired();
    }
    if (!isAccessTokenClaims(claims)) throw BearerTokenRequired();
    return claims;
  }
}
