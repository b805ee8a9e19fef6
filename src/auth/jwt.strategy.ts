import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppConfig } from '../config/app-config.js';
import { isUuid } from '../common/id.js';
import { BearerTokenRequired, BearerTokenRevoked } from './auth.errors.js';
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
function isAccessTokenClaims(claims: Record<string, unknown>): claims is Record<string, unknown> & AccessTokenClaims {
  return (
    typeof claims.sub === 'string' &&
    isUuid(claims.sub) &&
    typeof claims.workspace_id === 'string' &&
    isUuid(claims.workspace_id) &&
    typeof claims.scope === 'string' &&
    (claims.name === undefined || typeof claims.name === 'string')
  );
}

/** Verifies the bearer JWT (signature, expiry, issuer) and that its service account is still active. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    config: AppConfig,
    private readonly status: ServiceAccountStatus,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // passport-jwt hands this to jsonwebtoken.verify, which takes a KeyObject; its types predate that.
      secretOrKey: config.auth.jwtKey as unknown as Buffer,
      algorithms: ['HS256'],
      issuer: 'messaging-service',
      ignoreExpiration: false,
    });
  }

  async validate(claims: Record<string, unknown>): Promise<Principal> {
    if (!isAccessTokenClaims(claims)) throw BearerTokenRequired();
    if (!(await this.status.isActive(claims.sub, claims.workspace_id))) throw BearerTokenRevoked();
    return { serviceAccountId: claims.sub, workspaceId: claims.workspace_id, scopes: claims.scope.split(' '), name: claims.name };
  }
}
