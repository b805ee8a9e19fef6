import createClient from 'openapi-fetch';
import type { paths } from './schema.js';
import { unwrap } from './errors.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** Space-separated; omitted means the API scope. */
  scope?: string;
}

/** Form-encodes id and secret before base64, as RFC 6749 §2.3.1 asks. */
function basicAuthorization({ clientId, clientSecret }: ClientCredentials): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${btoa(`${encode(clientId)}:${encode(clientSecret)}`)}`;
}

/**
 * Gets and caches access tokens with client credentials (Service Login, HTTP Basic), renewing a
 * minute before they expire, one request at a time however many calls wait for it.
 */
export class ClientCredentialsTokens {
  private readonly login;
  private cached: { token: string; renewAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    baseUrl: string,
    private readonly credentials: ClientCredentials,
    fetchImpl?: typeof fetch,
  ) {
    this.login = createClient<paths>({ baseUrl, fetch: fetchImpl });
  }

  async token(): Promise<string> {
    if (this.cached && Date.now() < this.cached.renewAt) return this.cached.token;
    this.pending ??= this.requestToken().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forget the cached token (after a 401: the account's tokens may have been revoked). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async requestToken(): Promise<string> {
    const answer = unwrap(
      await this.login.POST('/connect/token', {
        body: { grant_type: 'client_credentials', ...(this.credentials.scope ? { scope: this.credentials.scope } : {}) },
        headers: { authorization: basicAuthorization(this.credentials) },
      }),
    );
    this.cached = { token: answer.access_token, renewAt: Date.now() + Math.max(0, answer.expires_in - 60) * 1000 };
    return answer.access_token;
  }
}
