import { readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { Client } from 'pg';

/** CPU time of a process so far (user + system), in ms; /proc counts clock ticks of 10 ms. */
export function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN; // gone
  }
}

/** What a span of work cost, by process group, in CPU ms; statements and commits counted alongside. */
export interface Cost {
  cpuMs: Record<string, number>;
  postgresMs: number;
  /** The shared Redis server's own CPU (used_cpu_user + used_cpu_sys): other users' work is in it too. */
  redisMs: number;
  statements: number;
  commits: number;
}

interface MeterOptions {
  databaseUrl: string;
  redisUrl: string;
  /** The backends counted: those of this `application_name`, or (without it) every client backend of the database but the meter's own. */
  applicationName?: string;
  /** The statement relay's control URL ({@link ../pg-statement-counter.ts}); without it statements read 0. */
  statementsUrl?: string;
  processes: Record<string, number>;
}

/**
 * Measures the CPU that named processes, the PostgreSQL backends of one `application_name` and the
 * Redis server spend between {@link CostMeter.start} and {@link CostMeter.stop}. Backends come and
 * go with the pools, so their CPU is sampled every second and a backend that ended counts what it
 * had at its last sample (at most a second of its work is missed).
 */
export class CostMeter {
  private readonly backendStart = new Map<number, number>();
  private readonly backendLast = new Map<number, number>();
  private processStart: Record<string, number> = {};
  private redisStart = 0;
  private statementsStart = 0;
  private commitsStart = 0;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly pg: Client,
    private readonly redis: Redis,
    private readonly options: MeterOptions & { database: string },
  ) {}

  static async start(options: MeterOptions): Promise<CostMeter> {
    const pg = new Client({ connectionString: options.databaseUrl });
    await pg.connect();
    const redis = new Redis(options.redisUrl);
    const database = new URL(options.databaseUrl).pathname.slice(1);
    const meter = new CostMeter(pg, redis, { ...options, database });
    await meter.begin();
    return meter;
  }

  private async begin(): Promise<void> {
    this.processStart = Object.fromEntries(Object.entries(this.options.processes).map(([name, pid]) => [name, processCpuMs(pid)]));
    for (const pid of await this.backendPids()) this.backendStart.set(pid, processCpuMs(pid));
    this.redisStart = await this.redisCpuMs();
    this.statementsStart = await this.statements();
    this.commitsStart = await this.commits();
    this.timer = setInterval(() => void this.sample(), 1000);
  }

  private async sample(): Promise<void> {
    for (const pid of await this.backendPids().catch(() => [])) {
      const ms = processCpuMs(pid);
      if (!Number.isNaN(ms)) this.backendLast.set(pid, ms);
    }
  }

  async stop(): Promise<Cost> {
    clearInterval(this.timer);
    await this.sample();
    let postgresMs = 0;
    for (const [pid, last] of this.backendLast) postgresMs += last - (this.backendStart.get(pid) ?? 0);
    const cpuMs = Object.fromEntries(
      Object.entries(this.options.processes).map(([name, pid]) => [name, processCpuMs(pid) - this.processStart[name]]),
    );
    const cost = {
      cpuMs,
      postgresMs,
      redisMs: (await this.redisCpuMs()) - this.redisStart,
      statements: (await this.statements()) - this.statementsStart,
      commits: (await this.commits()) - this.commitsStart,
    };
    await this.pg.end();
    this.redis.disconnect();
    return cost;
  }

  private async backendPids(): Promise<number[]> {
    const { rows } = await this.pg.query<{ pid: number }>(
      this.options.applicationName
        ? `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND backend_type = 'client backend'`
        : `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      [this.options.applicationName ?? this.options.database],
    );
    return rows.map((r) => r.pid);
  }

  private async redisCpuMs(): Promise<number> {
    const info = await this.redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
  }

  private async statements(): Promise<number> {
    if (!this.options.statementsUrl) return 0;
    return ((await (await fetch(this.options.statementsUrl)).json()) as { statements: number }).statements;
  }

  /** Commits in the database (every client of it, the bench's own reads included). */
  private async commits(): Promise<number> {
    const { rows } = await this.pg.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = $1', [
      this.options.database,
    ]);
    return Number(rows[0].n);
  }
}
