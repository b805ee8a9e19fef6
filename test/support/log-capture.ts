import { Writable } from 'node:stream';

/** One JSON record as pino writes it. */
export type LogRecord = Record<string, unknown> & { level: number; msg?: string; context?: string };

export const LEVEL = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A pino destination that keeps every record, for tests that read what the app logged. */
export class LogCapture extends Writable {
  readonly records: LogRecord[] = [];
  private partial = '';

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    const lines = (this.partial + chunk.toString('utf8')).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) if (line) this.records.push(JSON.parse(line) as LogRecord);
    callback();
  }

  find(predicate: (record: LogRecord) => boolean): LogRecord | undefined {
    return this.records.find(predicate);
  }
}
