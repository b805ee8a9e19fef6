import { Injectable } from '@nestjs/common';
import { Ffmpeg, SAFE_INPUT_OPTIONS } from './ffmpeg.js';
import { readWavFormat, type WavFormat } from './wav.js';

/** The telephony format every IVR prompt is stored in. */
export const TELEPHONY_WAV = { sampleRate: 8000, channels: 1, bitsPerSample: 16, contentType: 'audio/wav' } as const;

const TO_TELEPHONY_WAV = '-map 0:a:0 -ac 1 -ar 8000 -c:a pcm_s16le -map_metadata -1 -fflags +bitexact -flags:a +bitexact -f wav'.split(' ');

@Injectable()
export class AudioConverter {
  constructor(private readonly ffmpeg: Ffmpeg) {}

  /**
   * Decodes the first audio stream of `inputPath` (any format in the allowed list) and writes it to
   * `outputPath` as WAV, 8000 Hz, mono, 16-bit PCM, with a bare 44-byte header (no metadata chunks).
   * Throws FfmpegError ('failed') when the input has no decodable audio.
   */
  async toTelephonyWav(inputPath: string, outputPath: string): Promise<WavFormat> {
    await this.ffmpeg.run(['-loglevel', 'error', ...SAFE_INPUT_OPTIONS, '-i', inputPath, ...TO_TELEPHONY_WAV, '-y', outputPath]);
    return readWavFormat(outputPath);
  }
}
