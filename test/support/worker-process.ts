import { spawn, type ChildProcess } from 'node:child_process';

const MAIN = 'dist/src/main.js';

/** A worker process of the app (APP_ROLE=worker) from the production build, on the suite's database and Redis prefix. */
export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exit: Promise<unknown>;
}

/** Starts a worker with the test app's environment (set by `startTestApp`) and `env` on top. */
export function startWorker(env: Record<string, string> = {}): WorkerProcess {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, APP_ROLE: 'worker', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return { child, output: () => output, exit: new Promise((resolve) => child.on('exit', resolve)) };
}

/** Stops the workers still running (SIGTERM) and waits for every one to exit. */
export async function stopWorkers(workers: WorkerProcess[]): Promise<void> {
  for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exit));
}
