import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { MediaThread } from '../webrtc/media-thread.js';
import type { PacingReport } from '../webrtc/packet-pacer.js';

/** Above this p99 a 20 ms packet's lateness is audible as jitter at the far end's buffer: logged as a warning. */
const LATE_P99_MS = 10;

/**
 * Logs the media thread's WhatsApp call pacing once a minute while calls play (and at shutdown):
 * prompts, packets and how late they left their 20 ms slots. A worker carrying more calls than its
 * cores hold shows here first, as a p99 over {@link LATE_P99_MS} ms.
 */
@Injectable()
export class MediaPacingLog implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('WhatsAppCallMedia');
  private stopListening: (() => void) | undefined;

  onModuleInit(): void {
    this.stopListening = MediaThread.onPacingReport((report) => this.write(report));
  }

  async onApplicationShutdown(): Promise<void> {
    await MediaThread.closePacingWindow().catch(() => undefined); // a thread that died has nothing to report
    this.stopListening?.();
  }

  private write(report: PacingReport): void {
    const seconds = ((report.to - report.from) / 1000).toFixed(1);
    const figures = `lateness p50 ${report.p50Ms.toFixed(1)} / p99 ${report.p99Ms.toFixed(1)} / max ${report.maxMs.toFixed(1)} ms`;
    const message = `Media pacing: ${report.packets} packets of ${report.prompts} prompts in ${seconds} s, ${figures}`;
    const fields = { pacing: report };
    if (report.p99Ms > LATE_P99_MS) this.logger.warn(fields, `${message} (late: more calls than this worker's cores hold?)`);
    else this.logger.log(fields, message);
  }
}
