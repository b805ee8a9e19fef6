import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { freePort } from '../test/support/free-port.js';
export { freePort };

export interface LoadResult {
  /** Requests answered in the measured run. */
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  /** autocannon reports p90 and p97.5, not p95: p97.5 is quoted against p95 targets (it is never lower). */
  p97_5Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  /** A fixed body, or one per request. */
  body?: string | (() => string);
  /** Varies each request (path and/or body). */
  next?: () => { path?: string; body?: string };
  connections?: number;
  durationSeconds?: number;
  /** A fixed rate (requests/s over all connections, autocannon's `overallRate`, which it sends in bursts each second); unset, as fast as answers come. */
  rate?: number;
  /** Called after the warm-up, right before the measured run (e.g. to start a {@link CostMeter}). */
  beforeMeasured?: () => Promise<void>;
}

/** Drives `url` with autocannon after a short warm-up and returns throughput and latency. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const connections = options.connections ?? 32;
  const run = (duration: number) => {
    const body = options.body;
    return autocannon({
      url: options.url,
      method: options.method ?? 'GET',
      headers: options.headers,
      connections,
      duration,
      ...(options.rate ? { overallRate: options.rate } : {}),
      ...(options.next
        ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, ...options.next!() }) }] }
        : typeof body === 'function'
          ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: body() }) }] }
          : body !== undefined
            ? { body }
            : {}),
    });
  };
  await run(2);
  await options.beforeMeasured?.();
  const result = await run(options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 10));
  return {
    requests: result.requests.total,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p97_5Ms: result.latency.p97_5,
    p99Ms: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** A child Node process (the API under test, or a baseline server) whose peak RSS we can read. */
export class NodeProcess {
  private output = '';

  private constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk) => (this.output += chunk));
    child.stderr?.on('data', (chunk) => (this.output += chunk));
  }

  static start(script: string, env: Record<string, string>, nodeArgs: string[] = []): NodeProcess {
    return new NodeProcess(
      spawn(process.execPath, [...nodeArgs, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  }

  get log(): string {
    return this.output;
  }

  async waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`process exited early:\n${this.output}`);
      const ok = await fetch(url).then(
        (res) => res.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${url} did not answer:\n${this.output}`);
  }

  /** Peak resident set size in MB (VmHWM), as the kernel counted it. */
  peakRssMb(): number {
    return this.statusMb('VmHWM');
  }

  /** Resident set size now, in MB (VmRSS). */
  rssMb(): number {
    return this.statusMb('VmRSS');
  }

  /** A size field of /proc/<pid>/status (given in kB there), in MB. */
  private statusMb(field: 'VmHWM' | 'VmRSS'): number {
    const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
    const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  }

  /** CPU time the process has used so far (user + system), in seconds: on a shared machine, what its work cost whatever the wait. */
  cpuSeconds(): number {
    const fields = readFileSync(`/proc/${this.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // After the command: state is field 3, utime and stime are fields 14 and 15, in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      // 'close', not 'exit': the output is read to its end (a process's last log lines come at its exit).
      this.child.once('close', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}
