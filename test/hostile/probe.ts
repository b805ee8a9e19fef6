export type ProbeBody = string | FormData | undefined;

/** One hostile request, built when sent (a walk plans thousands, some with megabytes of body). */
export interface ProbeCase {
  operationId: string;
  /** What was hostile about it, e.g. `body.name = NUL inside`. */
  label: string;
  method: string;
  /** Path and query, already encoded. */
  url: string;
  headers: Record<string, string>;
  body: () => ProbeBody;
}

export interface ProbeResult {
  probe: ProbeCase;
  /** 0 when no answer came (connection reset or timeout). */
  status: number;
  text: string;
  ms: number;
  /** The answer shows a stack frame or a source file path. */
  leaksStack: boolean;
}

/** Stack frames (`    at fn (file:1:2)`) or paths into the code. */
const STACK_TRACE = /\n\s+at \S|\bat (?:async )?\S+ \(|\/(?:src|dist|node_modules)\/|\.(?:ts|js|mjs):\d+:\d+/;

export function leaksStack(text: string): boolean {
  return STACK_TRACE.test(text);
}

const TIMEOUT_MS = 15_000;

export async function sendProbe(baseUrl: string, probe: ProbeCase): Promise<ProbeResult> {
  const body = probe.body();
  const headers = { ...probe.headers };
  if (typeof body === 'string') headers['content-type'] ??= 'application/json';
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${probe.url}`, {
      method: probe.method,
      headers,
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text();
    return { probe, status: response.status, text, ms: performance.now() - started, leaksStack: leaksStack(text) };
  } catch (error) {
    return { probe, status: 0, text: String(error), ms: performance.now() - started, leaksStack: false };
  }
}

/** Runs `probes` with at most `concurrency` in flight, stopping early (and saying so) past `deadline`. */
export async function sendAll(
  baseUrl: string,
  probes: ProbeCase[],
  concurrency: number,
  deadline: number,
): Promise<{ results: ProbeResult[]; skipped: number }> {
  const results: ProbeResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < probes.length && Date.now() < deadline) results.push(await sendProbe(baseUrl, probes[next++]));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { results, skipped: probes.length - next };
}
