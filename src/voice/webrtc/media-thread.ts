import { join } from 'node:path';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { MediaPathNotConnected, MediaThreadLost } from './media-path.errors.js';
import type { MediaEvent, Message, Request, ThreadError, ThreadSettings } from './media-thread.protocol.js';
import type { PacingReport } from './packet-pacer.js';
import type { PlaybackReport } from './peer-media.js';
import type { PriorityOutcome } from './thread-priority.js';

/** The media thread's niceness unless configured otherwise (WHATSAPP_CALL_MEDIA_NICENESS). */
export const DEFAULT_MEDIA_THREAD_NICENESS = -10;

export type Ask = Request extends infer R ? (R extends { seq: number } ? Omit<R, 'seq'> : never) : never;
type Tell = Exclude<Request, { seq: number }>;

/** What a call's transport hears from the thread. */
export interface CallListener {
  key(key: string): void;
  audio(samples: Int16Array, rtpTimestamp: number): void;
  /** The thread is gone: every pending request of the call has failed; nothing more will come. */
  lost(error: MediaThreadLost): void;
}

function fromThread(error: ThreadError): Error {
  return error.mediaPath ? new MediaPathNotConnected(error.mediaPath.reason, error.mediaPath.afterMs) : new Error(error.message);
}

/**
 * The process's media thread (media-thread.worker.ts), started at the first call and restarted at
 * the next after a crash: requests with replies, one-way orders, and the events it sends back
 * (keys, received audio, pacing reports) handed to the calls and listeners they belong to.
 */
export class MediaThread {
  private static current: MediaThread | undefined;
  private static settings: ThreadSettings = { niceness: DEFAULT_MEDIA_THREAD_NICENESS };
  private static readonly pacingListeners = new Set<(report: PacingReport) => void>();
  private static readonly priorityListeners = new Set<(outcome: PriorityOutcome) => void>();

  private readonly worker = new Worker(join(__dirname, 'media-thread.worker.js'), { workerData: MediaThread.settings });
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly logger = new Logger('MediaThread');
  private readonly calls = new Map<number, CallListener>();
  private nextSeq = 1;
  private nextCall = 1;
  private gone: MediaThreadLost | undefined;
  /** Prompts the thread holds, by the samples' identity (the prompt cache keeps one array per file). */
  private readonly promptIds = new WeakMap<Int16Array, number>();
  private nextPrompt = 1;
  private readonly forgetPrompts = new FinalizationRegistry<number>((prompt) => this.tell({ op: 'forgetPrompt', prompt }));

  private constructor() {
    // Calls in progress keep the process alive through their jobs, not through this thread.
    this.worker.unref();
    this.worker.on('message', (message: Message) => this.take(message));
    this.worker.on('error', (error) => this.lose(new MediaThreadLost(error.message)));
    this.worker.on('messageerror', (error) => this.lose(new MediaThreadLost(`a message could not be read: ${error.message}`)));
    this.worker.on('exit', (code) => this.lose(new MediaThreadLost(`it exited with code ${code}`)));
  }

  /** The running thread, started if there is none. */
  static get(): MediaThread {
    if (!MediaThread.current) MediaThread.current = new MediaThread();
    return MediaThread.current;
  }

  /** Stops the running thread (a worker shutting down): the media of any call still on it is lost. */
  static async stop(): Promise<void> {
    const thread = MediaThread.current;
    if (!thread) return;
    thread.lose(new MediaThreadLost('the process is stopping'));
    await thread.worker.terminate();
  }

  /** Settings for the threads started from now on. */
  static configure(settings: ThreadSettings): void {
    MediaThread.settings = settings;
  }

  /** Calls `listener` with each of the media thread's pacing reports (see PacingReport); returns the function that stops it. */
  static onPacingReport(listener: (report: PacingReport) => void): () => void {
    MediaThread.pacingListeners.add(listener);
    return () => MediaThread.pacingListeners.delete(listener);
  }

  /** How busy the media thread's event loop was since `since` (as performance.eventLoopUtilization()); undefined with no thread. */
  static eventLoopUtilization(since?: EventLoopUtilization): EventLoopUtilization | undefined {
    return MediaThread.current?.worker.performance.eventLoopUtilization(since);
  }

  /** Calls `listener` with what became of each new thread's priority request. */
  static onPriority(listener: (outcome: PriorityOutcome) => void): () => void {
    MediaThread.priorityListeners.add(listener);
    return () => MediaThread.priorityListeners.delete(listener);
  }

  /** Ends the thread's pacing window now: its report reaches the listeners before this resolves (or within `timeoutMs`). */
  static async closePacingWindow(timeoutMs = 2000): Promise<void> {
    await MediaThread.current?.ask({ op: 'closePacingWindow' }, timeoutMs);
  }

  /** A new call's id; its events go to `listener`. */
  register(listener: CallListener): number {
    const call = this.nextCall++;
    this.calls.set(call, listener);
    return call;
  }

  forget(call: number): void {
    this.calls.delete(call);
  }

  /** Sends `request` and resolves with the thread's reply; rejects after `timeoutMs` if given (a thread that hangs). */
  ask<T = void>(request: Ask, timeoutMs?: number): Promise<T> {
    if (this.gone) return Promise.reject(this.gone);
    const seq = this.nextSeq++;
    return new Promise<T>((resolve, reject) => {
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              this.pending.delete(seq);
              reject(new Error(`The media thread did not answer ${request.op} within ${timeoutMs} ms`));
            }, timeoutMs);
      const settle = (then: () => void) => {
        clearTimeout(timer);
        then();
      };
      this.pending.set(seq, { resolve: (value) => settle(() => resolve(value as T)), reject: (error) => settle(() => reject(error)) });
      try {
        this.worker.postMessage({ ...request, seq });
      } catch (error) {
        this.pending.delete(seq);
        settle(() => reject(error));
      }
    });
  }

  tell(request: Tell): void {
    if (!this.gone) this.worker.postMessage(request);
  }

  /** Plays `audio` on a call; the samples cross to the thread the first time only. */
  play(call: number, audio: { sampleRate: number; samples: Int16Array }): Promise<PlaybackReport> {
    const { sampleRate, samples } = audio;
    let prompt = this.promptIds.get(samples);
    if (prompt !== undefined) return this.ask({ op: 'play', call, prompt, sampleRate });
    prompt = this.nextPrompt++;
    this.promptIds.set(samples, prompt);
    this.forgetPrompts.register(samples, prompt);
    return this.ask({ op: 'play', call, prompt, sampleRate, samples });
  }

  private take(message: Message): void {
    if (message.kind === 'events') {
      for (const event of message.events) this.dispatch(event);
      return;
    }
    const pending = this.pending.get(message.seq);
    this.pending.delete(message.seq);
    if ('error' in message) pending?.reject(fromThread(message.error));
    else pending?.resolve(message.value);
  }

  /** One event to whoever listens; a listener that throws is logged and costs no other event of the batch. */
  private dispatch(event: MediaEvent): void {
    try {
      if (event.event === 'pacing') for (const listener of MediaThread.pacingListeners) listener(event.report);
      else if (event.event === 'priority') for (const listener of MediaThread.priorityListeners) listener(event.outcome);
      else if (event.event === 'key') this.calls.get(event.call)?.key(event.key);
      else this.calls.get(event.call)?.audio(event.samples, event.rtpTimestamp);
    } catch (error) {
      this.logger.error({ err: error }, `A listener of the media thread's ${event.event} event failed`);
    }
  }

  /** The thread died: its calls' media is gone with it. The next call starts a new thread. */
  private lose(error: MediaThreadLost): void {
    if (this.gone) return;
    this.gone = error;
    if (MediaThread.current === this) MediaThread.current = undefined;
    for (const { reject } of this.pending.values()) reject(error);
    this.pending.clear();
    for (const listener of this.calls.values()) listener.lost(error);
    this.calls.clear();
    // A thread still running (a message it sent could not be read) is stopped with its peers.
    void this.worker.terminate();
  }
}
