import { execFile } from 'node:child_process';
import { Injectable } from '@nestjs/common';
import pLimit, { type LimitFunction } from 'p-limit';
import { AppConfig } from '../config/app-config.js';

/** ffmpeg exited with an error (the input could not be decoded) or was killed at the time limit. */
export class FfmpegError extends Error {
  constructor(
    readonly reason: 'failed' | 'timeout',
    readonly stderr: string,
  ) {
    super(reason === 'timeout' ? 'ffmpeg timed out' : `ffmpeg failed: ${stderr.trim().split('\n').slice(-3).join(' | ')}`);
    this.name = 'FfmpegError';
  }
}

/**
 * Demuxers ffmpeg may use on uploaded input: audio formats and the audio/video containers that
 * carry them. Playlist, concat and image-sequence demuxers stay out: they open other files.
 */
export const INPUT_FORMATS =
  '3gp,aac,ac3,aiff,amr,amrnb,amrwb,ape,asf,au,avi,caf,dsf,dts,eac3,flac,flv,g722,g723_1,g729,gsm,loas,m4a,matroska,' +
  'mlp,mov,mp3,mp4,mpc,mpc8,mpeg,mpegts,ogg,oma,rm,shn,tak,truehd,tta,voc,w64,wav,webm,wv,xwma';

/** Options that keep ffmpeg to local files and the formats above. */
export const SAFE_INPUT_OPTIONS = ['-protocol_whitelist', 'file', '-format_whitelist', INPUT_FORMATS];

/**
 * The ffmpeg binary: FFMPEG_PATH when set, else the one shipped in the npm package
 * `@ffmpeg-installer/<platform>`. At most FFMPEG_MAX_CONCURRENCY runs at once (the rest wait their
 * turn, and the time limit starts with the run); every run is killed at FFMPEG_TIMEOUT_MS.
 */
@Injectable()
export class Ffmpeg {
  private binary?: Promise<string>;
  private readonly turns: LimitFunction;

  constructor(private readonly config: AppConfig) {
    this.turns = pLimit(config.media.ffmpegMaxConcurrency);
  }

  /** Runs now waiting for a turn (for metrics and tests). */
  get waiting(): number {
    return this.turns.pendingCount;
  }

  /** Runs ffmpeg without a shell; resolves with its stderr (the log). */
  async run(args: string[], options: { allowFailure?: boolean } = {}): Promise<string> {
    const binary = await this.path();
    return this.turns(() => this.exec(binary, args, options));
  }

  private exec(binary: string, args: string[], options: { allowFailure?: boolean }): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        binary,
        ['-hide_banner', '-nostdin', ...args],
        { timeout: this.config.media.ffmpegTimeoutMs, killSignal: 'SIGKILL', maxBuffer: 1024 * 1024, encoding: 'utf8' },
        (error, _stdout, stderr) => {
          if (error?.killed) reject(new FfmpegError('timeout', stderr));
          else if (error && !options.allowFailure) reject(new FfmpegError('failed', stderr));
          else resolve(stderr);
        },
      );
    });
  }

  /** The container's duration as ffmpeg reads it on opening the file, or null when it states none. */
  async probeDurationMs(path: string): Promise<number | null> {
    // Given no output, ffmpeg describes the input and exits with an error: that is the probe.
    const log = await this.run([...SAFE_INPUT_OPTIONS, '-i', path], { allowFailure: true });
    const match = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(log);
    if (!match) return null;
    return Math.round((Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3])) * 1000);
  }

  private path(): Promise<string> {
    const configured = this.config.media.ffmpegPath;
    this.binary ??= configured
      ? Promise.resolve(configured)
      : import('@ffmpeg-installer/ffmpeg').then((installer) => installer.default.path);
    return this.binary;
  }
}
