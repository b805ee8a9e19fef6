import { createHash } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { freePort } from './harness.js';
import { MetaNotifier, type NotifierStats, type NotifierTarget } from './meta-notifier.js';

/** What the server thread tells the bench: where it listens, and what it saw (stamped on its own clock). */
type FromServer =
  | { kind: 'listening'; url: string }
  | { kind: 'arrivals'; batch: Array<[token: string, at: number]> }
  | { kind: 'download'; id: string; at: number }
  | { kind: 'loop-delay'; maxMs: number; p99Ms: number }
  | { kind: 'notifier-stats'; stats: NotifierStats };
/** What the bench tells the server thread. */
type ToServer =
  | { kind: 'media'; bytes: Uint8Array; sha256: string }
  | { kind: 'loop-delay' }
  | { kind: 'notify'; target: NotifierTarget }
  | { kind: 'notifier-stats' };

/** Marks this file's thread as the fake's server when it runs as a worker thread. */
const SERVER_THREAD = 'fake-cloud-api';
/** How often the server thread hands its arrivals to the bench: a lag of the mirror, never of the stamps. */
const FLUSH_MS = 10;

/**
 * A WhatsApp Cloud API stand-in on 127.0.0.1: answers every send like Meta and records when each
 * arrived; answers a number's settings (`POST /{phone-number-id}/settings`, calling) with
 * `{ success: true }`; serves inbound media as the Graph API does (`GET /{media-id}` describes it,
 * its `url` serves the bytes, both with the bearer token): every media id is the same file,
 * {@link mediaBytes}.
 *
 * The server runs in a thread of its own: arrivals are stamped on that thread's event loop, which
 * nothing else runs on. On the bench's loop (the load generator, the result counting) a 23 ms stall
 * stamped about 18 campaign sends at the same instant, so the fake's busiest second measured the
 * bench. The bench reads a mirror of the stamps, handed over every {@link FLUSH_MS} ms.
 */
export class FakeCloudApi {
  /** Arrival times by the unique token the bench puts in each message's first body parameter. */
  readonly arrivals = new Map<string, number[]>();
  /** The file every media id stands for, and its hex SHA-256. */
  mediaBytes: Buffer = Buffer.alloc(0);
  mediaSha256 = '';
  /** Media downloads served, by media id: when each finished. */
  readonly downloads = new Map<string, number>();
  url = '';

  private constructor(private readonly thread: Worker) {}

  static async start(): Promise<FakeCloudApi> {
    const port = await freePort();
    const fake = new FakeCloudApi(new Worker(__filename, { workerData: { role: SERVER_THREAD, port } }));
    fake.thread.on('message', (message: FromServer) => fake.take(message));
    await new Promise<void>((resolve, reject) => {
      fake.thread.on('message', (message: FromServer) => message.kind === 'listening' && resolve());
      fake.thread.once('error', reject);
    });
    return fake;
  }

  /** Makes every media id stand for `bytes`. */
  setMedia(bytes: Buffer): void {
    this.mediaBytes = bytes;
    this.mediaSha256 = createHash('sha256').update(bytes).digest('hex');
    this.thread.postMessage({ kind: 'media', bytes, sha256: this.mediaSha256 } satisfies ToServer);
  }

  /** How late the server thread's event loop ran (so how far its stamps may lag) since the last ask. */
  loopDelay(): Promise<{ maxMs: number; p99Ms: number }> {
    return this.ask('loop-delay');
  }

  /**
   * From now on, every template taken with a token is answered with the id `wamid.<token>` and
   * followed by Meta's status notifications (and some replies) to `target`: see {@link MetaNotifier}.
   */
  notify(target: NotifierTarget): void {
    this.thread.postMessage({ kind: 'notify', target } satisfies ToServer);
  }

  /** What the notifier has posted so far, and how the edge answered. */
  async notifierStats(): Promise<NotifierStats> {
    return (await this.ask('notifier-stats')).stats;
  }

  private ask<K extends 'loop-delay' | 'notifier-stats'>(kind: K): Promise<Extract<FromServer, { kind: K }>> {
    return new Promise((resolve) => {
      const answer = (message: FromServer) => {
        if (message.kind !== kind) return;
        this.thread.off('message', answer);
        resolve(message as Extract<FromServer, { kind: K }>);
      };
      this.thread.on('message', answer);
      this.thread.postMessage({ kind });
    });
  }

  close(): void {
    void this.thread.terminate();
  }

  private take(message: FromServer): void {
    if (message.kind === 'listening') this.url = message.url;
    else if (message.kind === 'download') this.downloads.set(message.id, message.at);
    else if (message.kind === 'arrivals')
      for (const [token, at] of message.batch) this.arrivals.set(token, [...(this.arrivals.get(token) ?? []), at]);
  }
}

/** The server thread: the HTTP stand-in itself. */
async function serve(port: number): Promise<void> {
  const url = `http://127.0.0.1:${port}/v25.0`;
  let media: { bytes: Buffer; sha256: string } = { bytes: Buffer.alloc(0), sha256: '' };
  let pending: Array<[string, number]> = [];
  let sent = 0;
  const post = (message: FromServer) => parentPort!.postMessage(message);
  const loopDelay = monitorEventLoopDelay({ resolution: 5 });
  loopDelay.enable();
  let notifier: MetaNotifier | undefined;
  parentPort!.on('message', (message: ToServer) => {
    if (message.kind === 'media') media = { bytes: Buffer.from(message.bytes), sha256: message.sha256 };
    else if (message.kind === 'notify') {
      notifier?.stop();
      notifier = new MetaNotifier(message.target);
    } else if (message.kind === 'notifier-stats') post({ kind: 'notifier-stats', stats: notifier?.stats ?? MetaNotifier.noStats() });
    else {
      post({ kind: 'loop-delay', maxMs: loopDelay.max / 1e6, p99Ms: loopDelay.percentile(99) / 1e6 });
      loopDelay.reset();
    }
  });
  setInterval(() => {
    if (pending.length === 0) return;
    post({ kind: 'arrivals', batch: pending });
    pending = [];
  }, FLUSH_MS).unref();

  const serveMedia = (path: string, auth: string | undefined, res: ServerResponse) => {
    if (!auth?.startsWith('Bearer ') || auth.length <= 'Bearer '.length) {
      res.writeHead(401).end();
      return;
    }
    const download = /^\/files\/([^/?]+)/.exec(path);
    if (download) {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': media.bytes.length });
      res.end(media.bytes, () => post({ kind: 'download', id: download[1], at: performance.timeOrigin + performance.now() }));
      return;
    }
    const id = /^\/v\d+\.\d+\/([^/?]+)$/.exec(path)?.[1];
    if (!id) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        messaging_product: 'whatsapp',
        url: `http://127.0.0.1:${port}/files/${id}?hash=bench`,
        mime_type: 'image/jpeg',
        sha256: media.sha256,
        file_size: String(media.bytes.length),
        id,
      }),
    );
  };

  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (req.method === 'GET') {
      req.resume();
      serveMedia(path, req.headers.authorization, res);
      return;
    }
    if (/^\/v\d+\.\d+\/[^/]+\/settings$/.test(path)) {
      // A phone number's settings (calling): Meta answers `{ success: true }`.
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: true }));
      return;
    }
    // Stamped when the request's head arrives, as Meta would count it, not once its body is read.
    const arrivedAt = performance.timeOrigin + performance.now();
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const send = JSON.parse(raw || '{}') as { to?: string; template?: { components?: Array<{ parameters?: Array<{ text?: string }> }> } };
      const token = send.template?.components?.[0]?.parameters?.[0]?.text;
      if (token) pending.push([token, arrivedAt]);
      const wamid = notifier && token ? `wamid.${token}` : `wamid.bench${++sent}`;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: wamid }] }));
      if (notifier && token && send.to) notifier.sent(wamid, send.to, token);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  post({ kind: 'listening', url });
}

if (!isMainThread && (workerData as { role?: string } | undefined)?.role === SERVER_THREAD)
  void serve((workerData as { port: number }).port);
