import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** The repository this test file was built from (dist/test/support → the root). */
export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

/** Environment variables of the test run that a new user's shell does not have. */
const RUN_ONLY_VARIABLES = /^(npm_|NODE_ENV$|NODE_OPTIONS$|NODE_TEST_CONTEXT$|INIT_CWD$)/;

/** A node binary with the version it reports. */
export interface NodeRuntime {
  bin: string;
  version: string;
  major: number;
}

/**
 * The Node.js versions to try the README's commands with: this process's own, and every other one on
 * the machine (`node` on PATH, the system's). CI runs the tests with Node 24 from the npm registry
 * while the machine's own is older, so both get tried. FIRST_RUN_NODES (paths, `:`-separated) replaces
 * the search.
 */
export function nodeRuntimes(): NodeRuntime[] {
  const candidates = process.env.FIRST_RUN_NODES?.split(':').filter(Boolean) ?? [
    process.execPath,
    ...whichAll('node'),
    '/usr/bin/node',
    '/usr/local/bin/node',
  ];
  const byVersion = new Map<string, NodeRuntime>();
  for (const bin of candidates) {
    let version: string;
    try {
      version = execFileSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim().replace(/^v/, '');
    } catch {
      continue; // not there
    }
    if (!byVersion.has(version)) byVersion.set(version, { bin, version, major: Number(version.split('.')[0]) });
  }
  return [...byVersion.values()];
}

function whichAll(command: string): string[] {
  try {
    return execFileSync('which', ['-a', command], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** A clone of the committed HEAD in a temporary folder, and commands run in it as a user would, with one Node.js. */
export class FreshClone {
  readonly env: NodeJS.ProcessEnv;
  private readonly children = new Set<ChildProcess>();

  private constructor(
    readonly dir: string,
    readonly node: NodeRuntime,
  ) {
    const userEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !RUN_ONLY_VARIABLES.test(name)));
    // This Node first on PATH: `npm` (the machine's) then runs on it, as it does for a user who installed it.
    this.env = { ...userEnv, PATH: `${dirname(node.bin)}:${process.env.PATH ?? ''}` };
  }

  static create(node: NodeRuntime): FreshClone {
    const dir = mkdtempSync(join(tmpdir(), 'msg-first-run-'));
    execFileSync('git', ['clone', '--quiet', REPO_ROOT, dir], { stdio: 'pipe' });
    const head = execFileSync('git', ['-C', REPO_ROOT, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    execFileSync('git', ['-C', dir, 'checkout', '--quiet', '--detach', head], { stdio: 'pipe' });
    return new FreshClone(dir, node);
  }

  /** Runs a shell command line to its end; answers its exit code and everything it printed. */
  run(commandLine: string, extraEnv: NodeJS.ProcessEnv = {}, timeoutMs = 240_000): Promise<{ code: number | null; output: string }> {
    const child = this.spawn(commandLine, extraEnv);
    return new Promise((resolvePromise) => {
      const timer = setTimeout(() => this.kill(child), timeoutMs);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolvePromise({ code, output: child.output });
      });
    });
  }

  /** Starts a shell command line in the clone (in a process group of its own); its output is recorded. */
  spawn(commandLine: string, extraEnv: NodeJS.ProcessEnv = {}, cwd = this.dir): RecordingChild {
    const child = spawn('bash', ['-c', commandLine], {
      cwd,
      env: { ...this.env, ...extraEnv },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    }) as RecordingChild;
    child.output = '';
    const record = (chunk: Buffer) => (child.output += chunk.toString('utf8'));
    child.stdout!.on('data', record);
    child.stderr!.on('data', record);
    this.children.add(child);
    child.on('exit', () => this.children.delete(child));
    return child;
  }

  /** Sends `signal` to the child's whole process group and waits for it to exit (SIGKILL after `graceMs`). */
  async stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 20_000): Promise<number | null> {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => resolvePromise(code)));
    this.signalGroup(child, signal);
    const timer = setTimeout(() => this.kill(child), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  close(): void {
    for (const child of this.children) this.kill(child);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private kill(child: ChildProcess): void {
    this.signalGroup(child, 'SIGKILL');
  }

  private signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  }
}

export type RecordingChild = ChildProcess & { output: string };

/** Waits until `check` answers true, polling every `everyMs`; throws `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Text without terminal colour codes. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
