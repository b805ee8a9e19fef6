import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { freePort } from './harness.js';

/**
 * A WhatsApp Cloud API stand-in on 127.0.0.1: answers every send like Meta and records when each
 * arrived; serves inbound media as the Graph API does (`GET /{media-id}` describes it, its `url`
 * serves the bytes, both with the bearer token): every media id is the same file, {@link mediaBytes}.
 */
export class FakeCloudApi {
  /** Arrival times by the unique token the bench puts in each message's first body parameter. */
  readonly arrivals = new Map<string, number[]>();
  /** The file every media id stands for, and its hex SHA-256. */
  mediaBytes: Buffer = Buffer.alloc(0);
  mediaSha256 = '';
  /** Media downloads served, by media id: when each finished. */
  readonly downloads = new Map<string, number>();
  private server!: Server;
  url = '';

  static async start(): Promise<FakeCloudApi> {
    const fake = new FakeCloudApi();
    let n = 0;
    fake.server = createServer((req, res) => {
      const path = req.url ?? '/';
      if (req.method === 'GET') {
        req.resume();
        fake.serveMedia(path, req.headers.authorization, res);
        return;
      }
      // Stamped when the request's head arrives, as Meta would count it, not once its body is read.
      const arrivedAt = performance.timeOrigin + performance.now();
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const token = (JSON.parse(raw || '{}') as { template?: { components?: Array<{ parameters?: Array<{ text?: string }> }> } }).template
          ?.components?.[0]?.parameters?.[0]?.text;
        if (token) fake.arrivals.set(token, [...(fake.arrivals.get(token) ?? []), arrivedAt]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ messaging_product: 'whatsapp', messages: [{ id: `wamid.bench${++n}` }] }));
      });
    });
    fake.server.keepAliveTimeout = 60_000;
    const port = await freePort();
    await new Promise<void>((resolve) => fake.server.listen(port, '127.0.0.1', resolve));
    fake.url = `http://127.0.0.1:${port}/v21.0`;
    return fake;
  }

  /** Makes every media id stand for `bytes`. */
  setMedia(bytes: Buffer): void {
    this.mediaBytes = bytes;
    this.mediaSha256 = createHash('sha256').update(bytes).digest('hex');
  }

  private serveMedia(path: string, auth: string | undefined, res: import('node:http').ServerResponse): void {
    if (!auth?.startsWith('Bearer ') || auth.length <= 'Bearer '.length) {
      res.writeHead(401).end();
      return;
    }
    const download = /^\/files\/([^/?]+)/.exec(path);
    if (download) {
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': this.mediaBytes.length });
      res.end(this.mediaBytes, () => this.downloads.set(download[1], performance.timeOrigin + performance.now()));
      return;
    }
    const id = /^\/v21\.0\/([^/?]+)$/.exec(path)?.[1];
    if (!id) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        messaging_product: 'whatsapp',
        url: `${this.url.replace(/\/v21\.0$/, '')}/files/${id}?hash=bench`,
        mime_type: 'image/jpeg',
        sha256: this.mediaSha256,
        file_size: String(this.mediaBytes.length),
        id,
      }),
    );
  }

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}
