import http from 'node:http';

export interface SteadyLoadResult {
  /** When each request (by its token) left, and when its 2xx answer came back. */
  sentAt: Map<string, number>;
  acceptedAt: Map<string, number>;
  non2xx: number;
  errors: number;
}

export interface SteadyLoadOptions {
  url: string;
  /** Headers of every request; `headersOf` adds per-request ones (a signature of the body). */
  headers: Record<string, string>;
  headersOf?: (payload: string) => Record<string, string>;
  /** The body of the request carrying `token` (each request has a unique one). */
  body: (token: string) => string;
  rate: number;
  seconds: number;
  /** Tokens are `${prefix}1`, `${prefix}2`, ... */
  prefix: string;
  maxSockets?: number;
  /** Called on each answer as it comes: the request's planned start and its latency (ms), and whether it was a 2xx. */
  onAnswer?: (answer: { sentAt: number; latencyMs: number; ok: boolean }) => void;
}

/**
 * POSTs at a steady `rate` per second, evenly spaced, for `seconds`, whatever the pace of the
 * answers (open loop: a slow answer does not hold back the next request, which waits in the
 * client's queue and is timed from its planned start). autocannon's rate is not used: it sends
 * each second's quota in a burst at the start of the second. Returns when every request has its answer.
 */
export async function steadyLoad(options: SteadyLoadOptions): Promise<SteadyLoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  const sentAt = new Map<string, number>();
  const acceptedAt = new Map<string, number>();
  const answers: Array<Promise<void>> = [];
  let non2xx = 0;
  let errors = 0;
  const now = () => performance.timeOrigin + performance.now();
  const send = (token: string) =>
    new Promise<void>((resolve) => {
      const payload = options.body(token);
      sentAt.set(token, now());
      const headers = { ...options.headers, ...options.headersOf?.(payload), 'content-length': Buffer.byteLength(payload) };
      const req = http.request(options.url, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const answeredAt = now();
          if (ok) acceptedAt.set(token, answeredAt);
          else non2xx++;
          options.onAnswer?.({ sentAt: sentAt.get(token)!, latencyMs: answeredAt - sentAt.get(token)!, ok });
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        options.onAnswer?.({ sentAt: sentAt.get(token)!, latencyMs: now() - sentAt.get(token)!, ok: false });
        resolve();
      });
      req.end(payload);
    });
  const total = options.rate * options.seconds;
  const start = now();
  while (answers.length < total) {
    const due = Math.min(total, Math.floor(((now() - start) * options.rate) / 1000) + 1);
    while (answers.length < due) answers.push(send(`${options.prefix}${answers.length + 1}`));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(answers);
  agent.destroy();
  return { sentAt, acceptedAt, non2xx, errors };
}

/** Percentiles of `values` (ms), rounded; an empty list gives Infinity. */
export function percentiles(values: number[]): { p50: number; p95: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Infinity);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}
