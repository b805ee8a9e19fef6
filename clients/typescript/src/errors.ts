import type { components } from './schema.js';

export type ErrorEnvelope = components['schemas']['ErrorEnvelopeDto'];
export type OAuthErrorBody = components['schemas']['OAuthErrorDto'];
/**
 * Every code the service answers (`Channels:ChannelNotFound`, `WhatsApp:ServiceWindowExpired`, …,
 * and Service Login's `invalid_client`, …): the enum the document lists, read from the service's source.
 */
export type ErrorCode = ErrorEnvelope['error']['code'];

/** The service's error envelope (every failure but Service Login's), recognised by its shape. */
export function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null || !('error' in body) || !('statusCode' in body)) return false;
  const error: unknown = body.error;
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string';
}

/** RFC 6749 §5.2's error body of Service Login. */
export function isOAuthError(body: unknown): body is OAuthErrorBody {
  return typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string';
}

/**
 * A failed call: the HTTP status, the body as the service sent it, and its `error.code`
 * (`Channels:ChannelNotFound`, `WhatsApp:ServiceWindowExpired`, …) or OAuth error (`invalid_client`).
 */
export class ApiError extends Error {
  readonly code: ErrorCode | undefined;

  constructor(
    readonly status: number,
    readonly body: ErrorEnvelope | OAuthErrorBody | undefined,
    readonly response: Response,
  ) {
    const code = isErrorEnvelope(body) ? body.error.code : isOAuthError(body) ? body.error : undefined;
    const message = isErrorEnvelope(body)
      ? body.message
      : isOAuthError(body)
        ? (body.error_description ?? body.error)
        : response.statusText;
    super(`${status} ${code ?? ''} ${message}`.replace(/\s+/g, ' ').trim());
    this.name = 'ApiError';
    this.code = code;
  }

  /** Seconds to wait after a 429, from `Retry-After`. */
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.response.headers.get('retry-after'));
    return Number.isFinite(value) && value > 0 ? value : undefined;
  }
}

/** What a call answers on success: the data of openapi-fetch's success branch (undefined for a 204). */
type DataOf<R> = R extends { error?: never; data: infer D } ? ([D] extends [never] ? undefined : D) : never;

/**
 * The data of a call, or an {@link ApiError} thrown with the typed error body:
 * `const contact = unwrap(await api.POST('/v1/contacts', { body }))`.
 */
export function unwrap<R extends { data?: unknown; error?: unknown; response: Response }>(outcome: R): DataOf<R> {
  if (outcome.error !== undefined) {
    const body: unknown = outcome.error;
    throw new ApiError(outcome.response.status, isErrorEnvelope(body) || isOAuthError(body) ? body : undefined, outcome.response);
  }
  // The success branch: `data` is the operation's response body (undefined for a 204).
  return outcome.data as DataOf<R>;
}
