import { Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { AppConfig } from '../config/app-config.js';
import { verifySecret } from '../common/crypto/password-hash.js';
import { RateLimitPolicy } from '../rate-limiting/rate-limit-policy.js';
import { RateLimitService } from '../rate-limiting/rate-limit.service.js';
import type { TokenRequestDto, TokenResponseDto } from './dto/token-request.dto.js';
import { OAuthError } from './oauth-error.js';
import { ServiceAccountsRepository } from './service-accounts.repository.js';

// Checked when the client id is unknown, so that a miss costs as much time as a wrong secret.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

/** Issues access tokens for service accounts (OAuth 2.0 client credentials). */
@Injectable()
export class TokenService {
  constructor(
    private readonly accounts: ServiceAccountsRepository,
    private readonly config: AppConfig,
    private readonly rateLimits: RateLimitService,
  ) {}

  /** `authorization` is the request's header: client credentials may come as HTTP Basic (RFC 6749 §2.3.1). */
  async issue(body: TokenRequestDto, authorization?: string): Promise<TokenResponseDto> {
    const request = withBasicCredentials(body, authorization);
    if (!request.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
    if (request.grant_type !== 'client_credentials') {
      throw new OAuthError('unsupported_grant_type', 'Only the client_credentials grant is supported.');
    }
    if (!request.client_id || !request.client_secret) {
      throw new OAuthError('invalid_request', 'client_id and client_secret are required.');
    }
    const scope = this.grantedScope(request.scope);
    await this.rateLimits.consume(RateLimitPolicy.TokenRequests, request.client_id);
    const account = await this.accounts.findUnscopedByClientId(request.client_id);
    const secretMatches = await verifySecret(request.client_secret, account?.clientSecretHash ?? DUMMY_HASH);
    if (!account || !secretMatches || account.revokedAt !== null) {
      throw new OAuthError('invalid_client', 'Client authentication failed.');
    }
    const expiresIn = this.config.auth.jwtExpiresInSeconds;
    const accessToken = jwt.sign({ workspace_id: account.workspaceId, scope, name: account.name }, this.config.auth.jwtKey, {
      algorithm: 'HS256',
      subject: account.id,
      issuer: 'messaging-service',
      expiresIn,
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: expiresIn, scope };
  }

  private grantedScope(requested: string | undefined): string {
    const apiScope = this.config.auth.apiScope;
    if (requested === undefined || requested.trim() === '') return apiScope;
    const scopes = requested.trim().split(/\s+/);
    if (scopes.some((scope) => scope !== apiScope)) throw new OAuthError('invalid_scope', `The only scope is '${apiScope}'.`);
    return apiScope;
  }
}

/**
 * The body with the client credentials of an `Authorization: Basic` header, whose id and secret are
 * form-encoded before base64 (RFC 6749 §2.3.1). Credentials in both places are an invalid_request
 * (one method per request, §2.3); a header that is not Basic is left alone.
 */
export function withBasicCredentials(body: TokenRequestDto, authorization: string | undefined): TokenRequestDto {
  const match = /^Basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return body;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new OAuthError('invalid_client', 'The Basic credentials are not client_id:client_secret.');
  if (body.client_id !== undefined || body.client_secret !== undefined) {
    throw new OAuthError('invalid_request', 'Send the client credentials either with HTTP Basic or in the body, not both.');
  }
  const formDecode = (value: string) => {
    try {
      return decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      throw new OAuthError('invalid_client', 'The Basic credentials are not form-encoded.');
    }
  };
  return { ...body, client_id: formDecode(decoded.slice(0, colon)), client_secret: formDecode(decoded.slice(colon + 1)) };
}
