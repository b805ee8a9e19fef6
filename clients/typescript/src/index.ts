import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import { ApiError, isOAuthError } from './errors.js';
import { ClientCredentialsTokens, type ClientCredentials } from './token.js';

export type { components, operations, paths, webhooks } from './schema.js';
export { ApiError, isErrorEnvelope, isOAuthError, unwrap, type ErrorCode, type ErrorEnvelope, type OAuthErrorBody } from './errors.js';
export { ClientCredentialsTokens, type ClientCredentials } from './token.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type OutboundIvrWebhookPayload,
  type VerifiedWebhook,
  type WebhookEnvelopes,
  type WebhookEventType,
  type WebhookPayloads,
} from './webhooks.js';

/** The request and response schemas by name: `Schemas['ContactDto']`. */
export type Schemas = components['schemas'];
export type MessagingClient = Client<paths>;

export interface MessagingClientOptions {
  /** Where the service runs, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** A service account's client credentials: tokens are fetched and renewed for you. */
  credentials?: ClientCredentials;
  /** Or a token you manage yourself. */
  accessToken?: string;
  fetch?: typeof fetch;
}

/**
 * A typed client of every operation (`api.GET('/v1/channels/service-account')`), authenticated with
 * client credentials or a given token. Each call answers `{ data, error, response }` typed from the
 * OpenAPI document; `unwrap()` turns an error into a thrown {@link ApiError}.
 */
export function createMessagingClient(options: MessagingClientOptions): MessagingClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  const tokens = options.credentials ? new ClientCredentialsTokens(options.baseUrl, options.credentials, options.fetch) : undefined;
  client.use({
    async onRequest({ request }) {
      if (request.headers.has('authorization')) return request;
      let token = options.accessToken;
      if (tokens) {
        try {
          token = await tokens.token();
        } catch (err) {
          // A refused Service Login is the call's failure, answered like any other: `{ error, response }`.
          if (err instanceof ApiError) return loginFailure(err);
          throw err;
        }
      }
      if (token) request.headers.set('authorization', `Bearer ${token}`);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) tokens?.invalidate();
      return response;
    },
  });
  return client;
}

/**
 * The answer of a call whose token could not be had: Service Login's status and headers, its
 * RFC 6749 error (`invalid_client`, …) in the error envelope every other failure has.
 */
function loginFailure(err: ApiError): Response {
  const body = isOAuthError(err.body)
    ? {
        statusCode: err.status,
        message: err.body.error_description ?? err.body.error,
        error: { code: err.body.error, message: err.body.error_description ?? err.body.error, details: null, validationErrors: null },
      }
    : err.body;
  const headers = new Headers(err.response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(JSON.stringify(body ?? null), { status: err.status, statusText: err.response.statusText, headers });
}
