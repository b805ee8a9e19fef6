/** Mono 16-bit PCM, as the service stores prompts (WAV 8 kHz mono since the telephony conversion). */
export interface PcmAudio {
  sampleRate: number;
  samples: Int16Array;
}

/** The sample rates Opus encodes from directly. */
export const OPUS_INPUT_RATES = [8000, 12000, 16000, 24000, 48000] as const;

/**
 * The samples of a mono 16-bit integer PCM WAV file (the `fmt ` and `data` chunks; chunks in between
 * are skipped). Throws on anything else: the prompt must be converted to mono PCM first.
 */
export function pcmFromWav(bytes: Buffer): PcmAudio {
  if (bytes.length < 12 || bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('Not a RIFF/WAVE file');
  }
  let format: { audioFormat: number; channels: number; sampleRate: number; bitsPerSample: number } | undefined;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      format = {
        audioFormat: bytes.readUInt16LE(offset + 8),
        channels: bytes.readUInt16LE(offset + 10),
        sampleRate: bytes.readUInt32LE(offset + 12),
        bitsPerSample: bytes.readUInt16LE(offset + 22),
      };
    } else if (id === 'data' && format) {
      if (format.audioFormat !== 1 || format.channels !== 1 || format.bitsPerSample !== 16) {
        throw new Error(
          `Expected mono 16-bit PCM, got format ${format.audioFormat}, ${format.channels} channels, ${format.bitsPerSample} bits`,
        );
      }
      const end = Math.min(offset + 8 + size, bytes.length) & ~1;
      const data = bytes.subarray(offset + 8, end);
      // Copied: the samples of a Buffer slice are not necessarily 2-byte aligned.
      const samples = new Int16Array(data.length / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = data.readInt16LE(i * 2);
      return { sampleRate: format.sampleRate, samples };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('WAV file without fmt and data chunks');
}
