import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';
import { ClientCredentialsTokens, type ClientCredentials } from './token.js';

export type { components, operations, paths } from './schema.js';
export { ApiError, isErrorEnvelope, isOAuthError, unwrap, type ErrorEnvelope, type OAuthErrorBody } from './errors.js';
export { ClientCredentialsTokens, type ClientCredentials } from './token.js';
export { verifyWebhook, WebhookVerificationError, type OutboundIvrWebhookPayload, type VerifiedWebhook } from './webhooks.js';

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
      const token = tokens ? await tokens.token() : options.accessToken;
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
