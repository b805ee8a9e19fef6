import { randomBytes } from 'node:crypto';
import http, { type ClientRequest } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

const TIMEOUT_MS = 15_000;
/** An upload carries up to 100 MB: it may take longer than a message. */
const UPLOAD_TIMEOUT_MS = 300_000;

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
  const payload = json === undefined ? undefined : JSON.stringify(json);
  const headers: Record<string, string | number> = {};
  if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  return exchange(method, url, accessToken, headers, TIMEOUT_MS, (req) => {
    req.end(payload);
  });
}

/** The file part of {@link graphUpload}. */
export interface GraphFile {
  stream: Readable;
  size: number;
  contentType: string;
  fileName: string;
}

/**
 * A `multipart/form-data` POST to the Graph API: the text `fields`, then `file` as the part named
 * `file`, streamed from its source (never held whole) with an exact Content-Length. A failure to
 * read the file rejects with that error (not a {@link GraphUnreachableError}).
 */
export function graphUpload(
  url: string,
  accessToken: string | null,
  fields: Record<string, string>,
  file: GraphFile,
): Promise<GraphResponse> {
  const boundary = `----graph-upload-${randomBytes(12).toString('hex')}`;
  const quoted = (value: string) => value.replace(/["\r\n\\]/g, '_');
  const head = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(file.fileName)}"\r\n` +
      `Content-Type: ${file.contentType}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const headers = {
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': head.length + file.size + tail.length,
  };
  let readError: Error | undefined;
  return exchange('POST', url, accessToken, headers, UPLOAD_TIMEOUT_MS, (req) => {
    req.write(head);
    file.stream.on('error', (err) => {
      readError = err;
      req.destroy(err);
    });
    file.stream.on('end', () => req.end(tail));
    file.stream.pipe(req, { end: false });
  }).catch((err: unknown) => {
    throw readError ?? err;
  });
}

function exchange(
  method: 'GET' | 'POST',
  url: string,
  accessToken: string | null,
  extraHeaders: Record<string, string | number>,
  timeoutMs: number,
  writeBody: (req: ClientRequest) => void,
): Promise<GraphResponse> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  const headers = { authorization: `Bearer ${accessToken ?? ''}`, accept: 'application/json', ...extraHeaders };
  return new Promise((resolve, reject) => {
    const fail = (err: Error & { code?: string }) =>
      reject(new GraphUnreachableError(err.name === 'AbortError' ? `no answer within ${timeoutMs / 1000} s` : (err.code ?? err.message)));
    const req = transport.request(
      target,
      { method, headers, agent: agents[target.protocol as keyof typeof agents], signal: AbortSignal.timeout(timeoutMs) },
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
    writeBody(req);
  });
}
