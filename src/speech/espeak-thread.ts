import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SpeakReply, SpeakRequest } from './espeak.worker.js';

const SPEAK_TIMEOUT_MS = 60_000;
const IDLE_EXIT_MS = 5 * 60_000;

interface Pending {
  request: SpeakRequest;
  resolve: () => void;
  reject: (err: Error) => void;
  timer?: NodeJS.Timeout;
}

/**
 * One worker thread holding one eSpeak NG instance, started on first use and stopped after five idle
 * minutes (it holds ~60 MB). Requests wait their turn here and go to the thread one at a time, so a
 * request's time limit runs from when the thread starts on it, not from when it was queued. A
 * request past its limit, or a crash, ends the thread and fails what was pending; the next request
 * starts a new one.
 */
export class EspeakThread {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private idleTimer?: NodeJS.Timeout;

  constructor(private readonly timeoutMs = SPEAK_TIMEOUT_MS) {}

  /** Writes `text` spoken with `voice` to `outputPath` as a 16-bit mono WAV at eSpeak's own rate. */
  speak(text: string, voice: string, outputPath: string): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(id, { request: { id, text, voice, outputPath }, resolve, reject });
      this.next();
    });
  }

  /** Hands the oldest waiting request to the thread when it is free; its time limit starts now. */
  private next(): void {
    const [first] = this.pending.values();
    if (!first || first.timer) return;
    const worker = this.start();
    first.timer = setTimeout(() => this.timeOut(first), this.timeoutMs);
    worker.postMessage(first.request);
  }

  /** Fails the request that ran too long and ends its thread; the requests behind it go to a new one. */
  private timeOut(pending: Pending): void {
    const worker = this.worker;
    this.worker = undefined;
    this.settle(pending.request.id, pending, new Error(`Speech synthesis took longer than ${this.timeoutMs} ms`));
    void worker?.terminate();
    this.next();
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
      else this.next();
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
