import { open } from 'node:fs/promises';

/** What a RIFF/WAVE header says about its audio. */
export interface WavFormat {
  /** 1 = integer PCM. */
  audioFormat: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  dataBytes: number;
  durationMs: number;
}

const HEADER_SCAN_BYTES = 64 * 1024;

/** Reads the `fmt ` and `data` chunks of a WAV file (chunks in between are skipped). */
export function parseWavHeader(bytes: Buffer): WavFormat {
  if (bytes.length < 12 || bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('Not a RIFF/WAVE file');
  }
  let format: Omit<WavFormat, 'dataBytes' | 'durationMs'> | undefined;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = bytes.toString('ascii', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 24 <= bytes.length) {
      format = {
        audioFormat: bytes.readUInt16LE(offset + 8),
        channels: bytes.readUInt16LE(offset + 10),
        sampleRate: bytes.readUInt32LE(offset + 12),
        bitsPerSample: bytes.readUInt16LE(offset + 22),
      };
    } else if (id === 'data' && format) {
      const bytesPerSecond = (format.sampleRate * format.channels * format.bitsPerSample) / 8;
      return { ...format, dataBytes: size, durationMs: Math.round((size / bytesPerSecond) * 1000) };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('WAV header without fmt and data chunks');
}

export async function readWavFormat(path: string): Promise<WavFormat> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(HEADER_SCAN_BYTES);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    return parseWavHeader(buffer.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** The 44-byte header of a mono or multi-channel integer PCM WAV holding `dataBytes` of samples. */
export function pcmWavHeader(dataBytes: number, sampleRate: number, channels = 1, bitsPerSample = 16): Buffer {
  const header = Buffer.alloc(44);
  const blockAlign = (channels * bitsPerSample) / 8;
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}
