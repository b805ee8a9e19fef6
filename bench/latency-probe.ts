import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** What the probe repeats: one authenticated GET at a time, every `intervalMs`. */
export interface LatencyProbeOptions {
  url: string;
  token: string;
  intervalMs: number;
}

/**
 * Times one request at a time against the API from a thread of its own. The bench's own event
 * loop also runs the fake Cloud API and counts its arrivals; a probe on that loop measured those
 * too (a 100,000-name arrival count every 250 ms is milliseconds of blocked loop), not only the API.
 * `stop()` ends the probe and gives its latencies in ms; a request that failed throws there.
 */
export function startLatencyProbe(options: LatencyProbeOptions): { stop(): Promise<number[]> } {
  const thread = new Worker(__filename, { workerData: options });
  const result = new Promise<number[]>((resolve, reject) => {
    thread.once('message', (message: { latencies?: number[]; error?: string }) =>
      message.error ? reject(new Error(message.error)) : resolve(message.latencies ?? []),
    );
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the latency probe's thread exited (${code}) without its latencies`)));
  });
  // A failure is reported by stop(); until then it must not end the bench as an unhandled rejection.
  result.catch(() => undefined);
  return {
    stop: async () => {
      thread.postMessage('stop');
      try {
        return await result;
      } finally {
        await thread.terminate();
      }
    },
  };
}

/** A request not answered by then fails the probe (a stalled API is a finding, not a wait). */
const REQUEST_TIMEOUT_MS = 30_000;

async function probe({ url, token, intervalMs }: LatencyProbeOptions): Promise<void> {
  let stopping = false;
  parentPort!.once('message', () => (stopping = true));
  const latencies: number[] = [];
  try {
    while (!stopping) {
      const started = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`GET ${url} → ${res.status}`);
      const took = performance.now() - started;
      latencies.push(took);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - took)));
    }
    parentPort!.postMessage({ latencies });
  } catch (err) {
    parentPort!.postMessage({ error: String(err) });
  }
}

if (!isMainThread && (workerData as Partial<LatencyProbeOptions> | undefined)?.url) void probe(workerData as LatencyProbeOptions);
