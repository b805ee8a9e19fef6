import { spawn, type ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { freePort } from './free-port.js';

/** A private redis-server on a free port, for tests that stop and restart Redis. */
export class ScratchRedis {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<ScratchRedis> {
    const redis = new ScratchRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.process !== undefined && this.process.exitCode === null && this.process.signalCode === null;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch {
        if (Date.now() > deadline) throw new Error('redis-server did not start');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** As a peer of `describeWithApp`: stopped once the app has closed. */
  close(): Promise<void> {
    return this.stop();
  }

  /** Kills the server (its data is gone: it keeps nothing on disk). */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child || !this.running) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }
}
