import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';

const run = promisify(execFile);

/** Runs the ffmpeg binary that ships through npm on lavfi sources and returns the file it wrote. */
export async function ffmpegGenerate(args: string[], extension: string): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'media-fixture-'));
  try {
    const out = join(dir, `out.${extension}`);
    await run(ffmpegInstaller.path, ['-hide_banner', '-loglevel', 'error', ...args, '-y', out]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const picture = ['-f', 'lavfi', '-i', 'testsrc=size=160x120', '-frames:v', '1'];
/** Two seconds of test pattern with a tone. */
const clip = (size: string, sampleRate: number) =>
  `-f lavfi -i testsrc=duration=2:size=${size}:rate=10 -f lavfi -i sine=duration=2:sample_rate=${sampleRate}`.split(' ');

/** Real media files of every type the Support API takes, made fresh rather than committed. */
export async function mediaFixtures() {
  const [png, jpeg, mp4, threeGp, wav, mp3] = await Promise.all([
    ffmpegGenerate(picture, 'png'),
    ffmpegGenerate(picture, 'jpg'),
    ffmpegGenerate([...clip('160x120', 44100), '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'], 'mp4'),
    ffmpegGenerate([...clip('176x144', 8000), '-c:v', 'h263', '-c:a', 'libopencore_amrnb', '-ac', '1', '-b:a', '12.2k'], '3gp'),
    // 3 s of stereo 44.1 kHz: the conversion has to resample and mix down.
    ffmpegGenerate(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=3', '-ac', '2'], 'wav'),
    ffmpegGenerate(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=3', '-b:a', '128k'], 'mp3'),
  ]);
  return { png, jpeg, mp4, threeGp, wav, mp3, pdf: minimalPdf() };
}

/**
 * A one-page PDF written as text, with a correct cross-reference table; with `openActionScript`,
 * a PDF that runs that JavaScript when it is opened (/OpenAction).
 */
export function minimalPdf({ openActionScript }: { openActionScript?: string } = {}): Buffer {
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R${openActionScript ? ' /OpenAction 4 0 R' : ''} >>`,
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] >>',
    ...(openActionScript ? [`<< /S /JavaScript /JS (${openActionScript}) >>`] : []),
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  body += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

export interface UploadResult {
  status: number;
  body: any;
}

/** Posts `bytes` as the multipart field `field`, as a browser or SDK would. */
export async function uploadFile(
  baseUrl: string,
  path: string,
  token: string | null,
  field: string,
  file: { bytes: Buffer; name: string; type: string },
): Promise<UploadResult> {
  const form = new FormData();
  form.append(field, new Blob([file.bytes], { type: file.type }), file.name);
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    body: form,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

export interface StreamedUploadResult extends UploadResult {
  /** Bytes of the body handed to the socket when the response arrived. */
  sentBeforeResponse: number;
  totalBytes: number;
}

/**
 * Streams a multipart upload of about `totalBytes` (the file is `head` followed by filler) with
 * chunked encoding, keeping pace with what the server reads, and stops sending as soon as a
 * response arrives.
 */
export function streamUpload(
  baseUrl: string,
  path: string,
  token: string,
  field: string,
  head: Buffer,
  totalBytes: number,
): Promise<StreamedUploadResult> {
  const boundary = `----upload${Date.now()}`;
  const request = httpRequest(new URL(path, baseUrl), {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  let sent = 0;
  let answered = false;
  const response = new Promise<StreamedUploadResult>((resolve, reject) => {
    request.on('response', (res) => {
      answered = true;
      const sentBeforeResponse = sent;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        request.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null, sentBeforeResponse, totalBytes });
      });
    });
    // Once the server has answered and closed the connection, writing fails: that is expected.
    request.on('error', (err) => !answered && reject(err));
  });
  const write = async (chunk: Buffer) => {
    sent += chunk.length;
    if (!request.write(chunk)) await Promise.race([once(request, 'drain'), response]);
  };
  void (async () => {
    await write(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="big.bin"\r\n\r\n`));
    await write(head);
    const filler = Buffer.alloc(64 * 1024, 0x55);
    while (!answered && sent < totalBytes) await write(filler);
    if (!answered) request.end(`\r\n--${boundary}--\r\n`);
  })().catch(() => undefined);
  return response;
}
