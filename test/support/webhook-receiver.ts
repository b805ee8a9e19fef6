import { createServer, type IncomingMessage, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { waitFor } from './fixtures.js';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  receivedAt: number;
}

export interface ScriptedResponse {
  status?: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

/**
 * A webhook receiver on 127.0.0.1: records every request, answers from a per-path script
 * (then 200), and verifies Standard Webhooks signatures with given secrets.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly scripts = new Map<string, ScriptedResponse[]>();
  private server!: Server;
  private host = '127.0.0.1';
  port = 0;

  /** Listens on `host` (127.0.0.1 by default; `::1` for IPv6 loopback). */
  static async start(host = '127.0.0.1'): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.host = host;
    receiver.server = createServer((req, res) => {
      const receivedAt = Date.now(); // when the headers arrived, the nearest the receiver sees to the sender's start
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = req.url ?? '/';
        receiver.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt });
        const next = receiver.scripts.get(path)?.shift() ?? {};
        setTimeout(() => {
          if (res.destroyed) return;
          res.writeHead(next.status ?? 200, next.headers ?? {});
          res.end('ok');
        }, next.delayMs ?? 0);
      });
    });
    receiver.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => receiver.server.listen(0, host, resolve));
    receiver.port = (receiver.server.address() as { port: number }).port;
    return receiver;
  }

  /** The URL of `path` at the listening address, or at `hostname` (a name that resolves to it). */
  url(path: string, hostname = this.host.includes(':') ? `[${this.host}]` : this.host): string {
    return `http://${hostname}:${this.port}${path}`;
  }

  /** The next answers for `path`, in order; after them, 200. */
  script(path: string, ...responses: ScriptedResponse[]): void {
    this.scripts.set(path, responses);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits for the first request to `path` whose verified payload matches `predicate`, and answers that payload. */
  signedPayload<T = Record<string, any>>(
    path: string,
    secret: string,
    predicate: (payload: T) => boolean,
    description: string,
    timeoutMs = 15_000,
  ): Promise<T> {
    return waitFor(
      async () =>
        this.at(path)
          .map((r) => verifySignature(r, secret) as T)
          .find(predicate),
      timeoutMs,
      description,
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Verifies a received webhook with one secret (throws when no signature in the header matches). */
export function verifySignature(received: ReceivedWebhook, secret: string): unknown {
  return new Webhook(secret).verify(received.body, {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  });
}
