import http from 'node:http';
import https from 'node:https';

const TIMEOUT_MS = 15_000;

// Kept-alive connections to the Graph API: one send per request would otherwise pay a TCP (and TLS) handshake.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export interface GraphResponse {
  status: number;
  /** The `Retry-After` header, if any. */
  retryAfter: string | undefined;
  /** The parsed JSON body ({} when it is not JSON). */
  body: unknown;
}

/** Thrown when the Graph API could not be reached or did not answer in time; `reason` says which. */
export class GraphUnreachableError extends Error {
  constructor(readonly reason: string) {
    super(`The Graph API could not be reached: ${reason}`);
  }
}

/** One request to the Graph API with the channel's bearer token (node:http, lighter than fetch on the send path). */
export function graphRequest(method: 'GET' | 'POST', url: string, accessToken: string | null, json?: unknown): Promise<GraphResponse> {
  const target = new URL(url);
  const payload = json === undefined ? undefined : JSON.stringify(json);
  const transport = target.protocol === 'https:' ? https : http;
  const headers: Record<string, string | number> = { authorization: `Bearer ${accessToken ?? ''}`, accept: 'application/json' };
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  return new Promise((resolve, reject) => {
    const fail = (err: Error & { code?: string }) =>
      reject(new GraphUnreachableError(err.name === 'AbortError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (err.code ?? err.message)));
    const req = transport.request(
      target,
      { method, headers, agent: agents[target.protocol as keyof typeof agents], signal: AbortSignal.timeout(TIMEOUT_MS) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', fail);
        res.on('end', () => {
          let body: unknown = {};
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            // not JSON: the status says enough
          }
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, body });
        });
      },
    );
    req.on('error', fail);
    req.end(payload);
  });
}
