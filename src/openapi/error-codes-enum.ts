import type { OpenAPIObject } from '@nestjs/swagger';
import { OAUTH_ERROR_CODES } from '../auth/oauth-error.js';
import { ERROR_CODES } from '../common/errors/error-codes.js';

type Schema = { properties?: Record<string, Record<string, unknown>> };

/**
 * Lists every code the service answers as the enum of the error envelope's `error.code`
 * (`ERROR_CODES`, generated from the source by `npm run openapi`, which passes the codes it has
 * just read) and of Service Login's OAuth `error`. RFC 6749's codes are in the envelope's list
 * too: the TypeScript client reports a refused Service Login in the envelope of the call it was for.
 */
export function listErrorCodes(document: OpenAPIObject, codes: readonly string[] = ERROR_CODES): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const code = schemas.ErrorInfoDto?.properties?.code;
  const oauth = schemas.OAuthErrorDto?.properties?.error;
  if (!code || !oauth) throw new Error('OpenAPI: ErrorInfoDto.code or OAuthErrorDto.error is missing.');
  code.enum = [...OAUTH_ERROR_CODES, ...codes];
  oauth.enum = [...OAUTH_ERROR_CODES];
}
