import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { AppConfig } from '../config/app-config.js';
import { DomainError, ErrorKind } from '../common/errors/domain-error.js';
import type { Principal } from './principal.js';
import { ServiceAccountStatus } from './service-account-status.js';

interface AccessTokenClaims {
  sub: string;
  workspace_id: string;
  scope: string;
  name?: string;
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

  async validate(claims: AccessTokenClaims): Promise<Principal> {
    if (!(await this.status.isActive(claims.sub, claims.workspace_id))) {
      throw new DomainError('Auth:TokenRevoked', 'The access token has been revoked.', ErrorKind.Unauthenticated);
    }
    return { serviceAccountId: claims.sub, workspaceId: claims.workspace_id, scopes: claims.scope.split(' '), name: claims.name };
  }
}
