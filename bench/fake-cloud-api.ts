import { createServer, type Server } from 'node:http';
import { freePort } from './harness.js';

/** A WhatsApp Cloud API stand-in on 127.0.0.1: answers every send like Meta and records when each arrived. */
export class FakeCloudApi {
  /** Arrival times by the unique token the bench puts in each message's first body parameter. */
  readonly arrivals = new Map<string, number[]>();
  private server!: Server;
  url = '';

  static async start(): Promise<FakeCloudApi> {
    const fake = new FakeCloudApi();
    let n = 0;
    fake.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const token = (JSON.parse(raw || '{}') as { template?: { components?: Array<{ parameters?: Array<{ text?: string }> }> } }).template
          ?.components?.[0]?.parameters?.[0]?.text;
        if (token) fake.arrivals.set(token, [...(fake.arrivals.get(token) ?? []), performance.timeOrigin + performance.now()]);
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

  close(): void {
    this.server.closeAllConnections();
    this.server.close();
  }
}
