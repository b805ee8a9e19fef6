import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/** RFC 6749 §5.2's codes that Service Login answers. */
export const OAUTH_ERROR_CODES = ['invalid_request', 'invalid_client', 'unsupported_grant_type', 'invalid_scope'] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** A token endpoint failure, answered with the RFC 6749 §5.2 body rather than the error envelope. */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }

  get status(): number {
    return this.error === 'invalid_client' ? 401 : 400;
  }
}

@Catch(OAuthError)
export class OAuthErrorFilter implements ExceptionFilter {
  catch(exception: OAuthError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (exception.error === 'invalid_client') reply.header('WWW-Authenticate', 'Basic realm="token"');
    void reply
      .status(exception.status)
      .header('Cache-Control', 'no-store')
      .send({ error: exception.error, error_description: exception.description });
  }
}
