import { freePort, NodeProcess } from './harness.js';

/**
 * A statement-counting relay in front of PostgreSQL ({@link ./pg-statement-counter.ts}), run as a
 * child process: point a process's DATABASE_URL at `databaseUrl` to count what it runs.
 */
export class StatementRelay {
  private constructor(
    readonly process: NodeProcess,
    readonly databaseUrl: string,
    private readonly controlPort: number,
  ) {}

  static async start(databaseUrl: string, applicationName?: string): Promise<StatementRelay> {
    const port = await freePort();
    const controlPort = await freePort();
    const relay = NodeProcess.start('dist/bench/pg-statement-counter.js', { PORT: String(port), CONTROL_PORT: String(controlPort) });
    const relayed = new URL(databaseUrl);
    relayed.port = String(port);
    if (applicationName) relayed.searchParams.set('application_name', applicationName);
    return new StatementRelay(relay, relayed.toString(), controlPort);
  }

  /** The control URL the cost meter reads. */
  get statementsUrl(): string {
    return `http://127.0.0.1:${this.controlPort}/`;
  }

  /** Counts of statements by text so far. */
  async texts(): Promise<Record<string, number>> {
    return ((await (await fetch(this.statementsUrl)).json()) as { byText: Record<string, number> }).byText;
  }

  stop(): Promise<void> {
    return this.process.stop();
  }
}

/** Statements run between two {@link StatementRelay.texts} readings, in all. */
export function statementsBetween(before: Record<string, number>, after: Record<string, number>): number {
  return Object.entries(after).reduce((sum, [text, n]) => sum + n - (before[text] ?? 0), 0);
}

/** The statements run between two readings, most frequent first, per `unit` (a loop, a call): where they go. */
export function statementLines(before: Record<string, number>, after: Record<string, number>, units: number, unit = 'loop'): string[] {
  const ran = Object.entries(after)
    .map(([text, n]) => [text, n - (before[text] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  return ran.slice(0, 25).map(([text, n]) => `    ${(n / units).toFixed(2)} per ${unit}: ${text}`);
}
