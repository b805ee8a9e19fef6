import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import http, { type ClientRequest } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
export function graphRequest(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  accessToken: string | null,
  json?: unknown,
): Promise<GraphResponse> {
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
  method: 'GET' | 'POST' | 'DELETE',
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

/** Thrown when a download exceeds its limit (announced by Content-Length, or counted as it arrives). */
export class DownloadTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`The file is larger than ${limitBytes} bytes.`);
  }
}

/** What {@link graphDownload} got: the HTTP status and, for a 200, the bytes written and their SHA-256. */
export interface GraphDownload {
  status: number;
  size: number;
  sha256: Buffer | null;
  contentType: string | undefined;
}

/** Silence on the connection this long ends a download (a large file may take longer as a whole). */
const DOWNLOAD_IDLE_MS = 30_000;

/**
 * Streams `url` (a media URL the Graph API handed out, fetched with the same bearer token) into
 * the new file `target`, hashing and counting as the bytes pass: the file is never held in memory.
 * More than `maxBytes` is refused before or while reading. The caller removes `target` on failure.
 * A non-200 answer resolves with its status and writes nothing.
 */
export function graphDownload(url: string, accessToken: string | null, target: string, maxBytes: number): Promise<GraphDownload> {
  const source = new URL(url);
  const transport = source.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const fail = (err: Error & { code?: string }) =>
      reject(
        err instanceof DownloadTooLargeError || err instanceof GraphUnreachableError
          ? err
          : new GraphUnreachableError(err.code ?? err.message),
      );
    const req = transport.get(
      source,
      { headers: { authorization: `Bearer ${accessToken ?? ''}` }, agent: agents[source.protocol as keyof typeof agents] },
      (res) => {
        const status = res.statusCode ?? 0;
        const contentType = res.headers['content-type'];
        if (status !== 200) {
          res.resume();
          res.on('end', () => resolve({ status, size: 0, sha256: null, contentType }));
          res.on('error', fail);
          return;
        }
        const announced = Number(res.headers['content-length']);
        if (Number.isFinite(announced) && announced > maxBytes) {
          res.destroy();
          reject(new DownloadTooLargeError(maxBytes));
          return;
        }
        const hash = createHash('sha256');
        let size = 0;
        async function* countAndHash(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
          for await (const chunk of chunks) {
            size += chunk.length;
            if (size > maxBytes) throw new DownloadTooLargeError(maxBytes);
            hash.update(chunk);
            yield chunk;
          }
        }
        pipeline(res, countAndHash, createWriteStream(target, { flags: 'wx' })).then(
          () => resolve({ status, size, sha256: hash.digest(), contentType }),
          fail,
        );
      },
    );
    req.setTimeout(DOWNLOAD_IDLE_MS, () => req.destroy(new GraphUnreachableError(`no data for ${DOWNLOAD_IDLE_MS / 1000} s`)));
    req.on('error', fail);
  });
}
