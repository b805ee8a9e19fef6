import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SpeakReply, SpeakRequest } from './espeak.worker.js';

const SPEAK_TIMEOUT_MS = 60_000;
const IDLE_EXIT_MS = 5 * 60_000;

interface Pending {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One worker thread holding one eSpeak NG instance, started on first use and stopped after five idle
 * minutes (it holds ~60 MB). Requests run one after another inside it. A request past its time
 * limit, or a crash, ends the thread and fails what was pending; the next request starts a new one.
 */
export class EspeakThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private idleTimer?: NodeJS.Timeout;

  /** Writes `text` spoken with `voice` to `outputPath` as a 16-bit mono WAV at eSpeak's own rate. */
  speak(text: string, voice: string, outputPath: string): Promise<void> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.stop(new Error(`Speech synthesis took longer than ${SPEAK_TIMEOUT_MS} ms`)), SPEAK_TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, text, voice, outputPath } satisfies SpeakRequest);
    });
  }

  /** Ends the thread; whatever is pending fails with `reason`. */
  stop(reason = new Error('Speech synthesis stopped')): Promise<number> | undefined {
    const worker = this.worker;
    this.worker = undefined;
    clearTimeout(this.idleTimer);
    for (const [id, pending] of this.pending) this.settle(id, pending, reason);
    return worker?.terminate();
  }

  private start(): Worker {
    clearTimeout(this.idleTimer);
    if (this.worker) return this.worker;
    const worker = new Worker(join(__dirname, 'espeak.worker.js'));
    worker.unref();
    worker.on('message', (reply: SpeakReply) => {
      const pending = this.pending.get(reply.id);
      if (pending) this.settle(reply.id, pending, reply.error === undefined ? undefined : new Error(reply.error));
      if (this.pending.size === 0) this.idleTimer = setTimeout(() => void this.stop(), IDLE_EXIT_MS).unref();
    });
    worker.on('error', (err) => this.worker === worker && void this.stop(err));
    worker.on('exit', (code) => this.worker === worker && void this.stop(new Error(`Speech synthesis thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private settle(id: number, pending: Pending, error: Error | undefined): void {
    clearTimeout(pending.timer);
    this.pending.delete(id);
    if (error) pending.reject(error);
    else pending.resolve();
  }
}
