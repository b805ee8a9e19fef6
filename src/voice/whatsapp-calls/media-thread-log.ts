import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { MediaThread } from '../webrtc/media-thread.js';
import type { PacingReport } from '../webrtc/packet-pacer.js';
import type { PriorityOutcome } from '../webrtc/thread-priority.js';

/** Above this p99 a 20 ms packet's lateness is audible as jitter at the far end's buffer: logged as a warning. */
const LATE_P99_MS = 10;

/**
 * Sets the media thread up from the configuration and logs what it reports: its priority when it
 * starts, and once a minute while calls play (and at shutdown) how late its packets left their 20 ms
 * slots; it stops the thread when the process stops. A worker carrying more calls than its media
 * thread keeps in time shows here first, as a p99 over {@link LATE_P99_MS} ms.
 */
@Injectable()
export class MediaThreadLog implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('WhatsAppCallMedia');
  private readonly stopListening: Array<() => void> = [];

  constructor(private readonly config: AppConfig) {}

  onModuleInit(): void {
    MediaThread.configure({ niceness: this.config.voice.whatsAppCallMediaNiceness });
    this.stopListening.push(
      MediaThread.onPacingReport((report) => this.pacing(report)),
      MediaThread.onPriority((outcome) => this.priority(outcome)),
    );
  }

  async onApplicationShutdown(): Promise<void> {
    await MediaThread.closePacingWindow().catch(() => undefined); // a thread that died has nothing to report
    for (const stop of this.stopListening) stop();
    await MediaThread.stop();
  }

  private priority(outcome: PriorityOutcome): void {
    if (outcome.applied) this.logger.log(`The media thread runs at niceness ${outcome.niceness}`);
    else
      this.logger.warn(
        `The media thread could not take niceness ${outcome.niceness} (${outcome.reason}): its packets may leave late on a busy machine. Give the worker CAP_SYS_NICE or an RLIMIT_NICE of 20 minus the niceness (a container: ulimits nice 30), or set WHATSAPP_CALL_MEDIA_NICENESS=0`,
      );
  }

  private pacing(report: PacingReport): void {
    const seconds = ((report.to - report.from) / 1000).toFixed(1);
    const figures = `lateness p50 ${report.p50Ms.toFixed(1)} / p99 ${report.p99Ms.toFixed(1)} / max ${report.maxMs.toFixed(1)} ms`;
    const message = `Media pacing: ${report.packets} packets of ${report.prompts} prompts in ${seconds} s, ${figures}`;
    const fields = { pacing: report };
    if (report.p99Ms > LATE_P99_MS)
      this.logger.warn(fields, `${message} (late: more calls than this worker's media thread keeps in time?)`);
    else this.logger.log(fields, message);
  }
}
