import { Agent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

const CHUNK = 256 * 1024;

export interface LargeBodyResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
  /** Bytes of the body written in all. */
  sent: number;
  /** Why writing the rest of the body failed (EPIPE, ECONNRESET), or null when all of it went out. */
  writeError: string | null;
}

/**
 * POSTs a JSON body with node:http the way a client that does not wait for an answer sends it:
 * a first chunk, then, once the server has answered, the rest. With `size`, the body is that many
 * bytes with a Content-Length; without, it is chunked and goes on until the server answers, then
 * for `afterAnswer` more bytes. Reports the answer and whether the whole body could be written.
 */
export async function postLargeBody(
  url: string,
  options: {
    size?: number;
    afterAnswer?: number;
    /** Bytes written before waiting for the answer (with `size`); 0 sends the headers alone. */
    firstChunk?: number;
    headers?: Record<string, string>;
    agent?: Agent;
    contentType?: string;
  },
): Promise<LargeBodyResult> {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json', ...options.headers };
  if (options.size !== undefined) headers['content-length'] = String(options.size);
  const req = httpRequest(url, { method: 'POST', headers, agent: options.agent });
  let failed: Error | null = null;
  req.on('error', (err) => (failed ??= err));
  const answer = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  let sent = 0;
  const write = async (bytes: number) => {
    const chunk = Buffer.alloc(bytes, 0x20);
    if (sent === 0) chunk[0] = 0x7b; // '{'
    sent += bytes;
    await writeChunk(req, chunk);
  };
  try {
    if (options.size !== undefined) {
      const first = options.firstChunk ?? CHUNK;
      if (first > 0) await write(first);
      else req.flushHeaders();
      await within(answer, 10_000, 'the answer to the body');
      while (sent < options.size) await write(Math.min(CHUNK, options.size - sent));
    } else {
      let answered = false;
      answer.then(
        () => (answered = true),
        () => (answered = true),
      );
      while (!answered) await write(CHUNK);
      for (let more = 0; more < (options.afterAnswer ?? CHUNK); more += CHUNK) await write(CHUNK);
    }
    await new Promise<void>((resolve, reject) => req.end((err?: Error | null) => (err ? reject(err) : resolve())));
  } catch (err) {
    failed ??= err as Error;
  }
  const res = await within(answer, 10_000, 'the answer to the body');
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const writeError = failed ? ((failed as NodeJS.ErrnoException).code ?? failed.message) : null;
  return { status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null, sent, writeError };
}

function writeChunk(req: ClientRequest, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    req.once('error', onError);
    req.write(chunk, (err) => {
      req.off('error', onError);
      if (err) reject(err);
      else resolve();
    });
  });
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`Timed out waiting for ${what}`)), ms))),
  ]);
}
