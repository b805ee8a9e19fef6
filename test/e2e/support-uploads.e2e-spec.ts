import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, it } from 'node:test';
import { DataSource } from 'typeorm';
import { parseWavHeader } from '../../src/media/wav.js';
import { MediaStorage } from '../../src/storage/media-storage.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { mediaFixtures, minimalPdf, streamUpload, uploadFile } from '../support/media-fixtures.js';
import { TempDir } from '../support/temp-dir.js';

const PUBLIC_BASE_URL = 'https://media.example.test';
const MB = 1024 * 1024;
const UPLOADED_FIELDS = ['contentType', 'durationMs', 'fileName', 'id', 'mediaType', 'size', 'url'];

describeWithApp(
  'Support API uploads and media URLs',
  {
    peers: { storage: async () => TempDir.create('support-uploads-') },
    env: ({ storage }) => ({ STORAGE_DIR: storage.path, PUBLIC_BASE_URL, RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' }),
    workspaces: 1,
  },
  (fx) => {
    let files: Awaited<ReturnType<typeof mediaFixtures>>;

    const upload = (file: { bytes: Buffer; name: string; type: string }, token: string | null = fx.a.token) =>
      uploadFile(fx.t.baseUrl, '/v1/support/upload', token, 'file', file);
    const uploadAudio = (file: { bytes: Buffer; name: string; type: string }, token: string | null = fx.a.token) =>
      uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', token, 'audioFile', file);
    /** Fetches a media URL from this app, without a token. */
    const fetchMedia = (url: string, init: RequestInit = {}) => {
      assert.ok(url.startsWith(`${PUBLIC_BASE_URL}/media/`), url);
      return fetch(`${fx.t.baseUrl}${url.slice(PUBLIC_BASE_URL.length)}`, init);
    };
    const mediaRows = async () => Number((await fx.t.app.get(DataSource).query('SELECT count(*) AS n FROM media_files'))[0].n);
    const tempFiles = () => readdirSync(join(fx.storage.path, 'tmp'));

    before(async () => {
      files = await mediaFixtures();
    });

    it('accepts PNG, JPEG, MP4, 3GP and PDF by their bytes and serves them without a token', async () => {
      const cases = [
        { bytes: files.png, name: 'logo.png', type: 'image/png', mediaType: 'image', fileName: 'logo.png' },
        { bytes: files.jpeg, name: 'photo.jpeg', type: 'image/jpeg', mediaType: 'image', fileName: 'photo.jpg' },
        { bytes: files.mp4, name: 'clip.mp4', type: 'video/mp4', mediaType: 'video', fileName: 'clip.mp4' },
        { bytes: files.threeGp, name: 'clip.3gp', type: 'video/3gpp', mediaType: 'video', fileName: 'clip.3gp' },
        {
          bytes: files.pdf,
          name: 'Invoice March 2026.pdf',
          type: 'application/pdf',
          mediaType: 'document',
          fileName: 'Invoice_March_2026.pdf',
        },
      ];
      for (const c of cases) {
        const res = await upload(c);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(Object.keys(res.body).sort(), UPLOADED_FIELDS);
        assert.equal(res.body.contentType, c.type, c.name);
        assert.equal(res.body.mediaType, c.mediaType, c.name);
        assert.equal(res.body.fileName, c.fileName);
        assert.equal(res.body.size, c.bytes.length);
        assert.match(res.body.url, new RegExp(`^${PUBLIC_BASE_URL}/media/[A-Za-z0-9_-]{32}/${c.fileName}$`));
        if (c.mediaType === 'video') assert.ok(Math.abs(res.body.durationMs - 2000) <= 100, `${c.name}: ${res.body.durationMs} ms`);
        else assert.equal(res.body.durationMs, null);

        const served = await fetchMedia(res.body.url);
        assert.equal(served.status, 200);
        assert.equal(served.headers.get('content-type'), c.type);
        assert.equal(served.headers.get('content-length'), String(c.bytes.length));
        assert.equal(served.headers.get('x-content-type-options'), 'nosniff');
        assert.ok(Buffer.from(await served.arrayBuffer()).equals(c.bytes), `${c.name} served back unchanged`);
      }
      const [row] = await fx.t.app.get(DataSource).query('SELECT DISTINCT workspace_id FROM media_files');
      assert.equal(row.workspace_id, fx.a.workspaceId);
    });

    it('names and types a file by its content, not by the name or type the client gave', async () => {
      const res = await upload({ bytes: files.png, name: 'holiday.jpg', type: 'image/jpeg' });
      assert.equal(res.status, 200);
      assert.equal(res.body.contentType, 'image/png');
      assert.equal(res.body.fileName, 'holiday.png');
    });

    it('refuses a renamed executable with 415 on both routes, storing nothing', async () => {
      const before = await mediaRows();
      const executable = { bytes: readFileSync('/bin/ls'), name: 'photo.png', type: 'image/png' };
      const res = await upload(executable);
      assert.equal(res.status, 415);
      assert.equal(res.body.error.code, 'Support:UnsupportedMediaType');
      assert.match(
        res.body.message,
        /^Detected application\/x-elf; allowed: image\/jpeg up to 5 MB, image\/png up to 5 MB, video\/mp4 up to 16 MB/,
      );
      const audio = await uploadAudio({ ...executable, name: 'greeting.mp3', type: 'audio/mpeg' });
      assert.equal(audio.status, 415);
      assert.equal(audio.body.error.code, 'Support:UnsupportedMediaType');
      assert.match(audio.body.message, /application\/x-elf, which is not audio/);
      assert.equal(await mediaRows(), before);
    });

    it('refuses other images, and bytes that do not decode as audio, with 415', async () => {
      const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(64)]);
      const res = await upload({ bytes: gif, name: 'anim.png', type: 'image/png' });
      assert.equal(res.status, 415);
      assert.match(res.body.message, /^Detected image\/gif;/);
      const text = await uploadAudio({ bytes: Buffer.from('hello '.repeat(2000)), name: 'voice.wav', type: 'audio/wav' });
      assert.equal(text.status, 415);
      assert.equal(text.body.error.code, 'Support:UnsupportedMediaType');
      assert.equal(text.body.message, 'The file could not be decoded as audio (detected: an unrecognised format).');
      const pdfAsAudio = await uploadAudio({ bytes: files.pdf, name: 'voice.mp3', type: 'audio/mpeg' });
      assert.equal(pdfAsAudio.status, 415);
      assert.match(pdfAsAudio.body.message, /application\/pdf, which is not audio/);
    });

    it('does not let an uploaded playlist make ffmpeg read a file of the server', async () => {
      const secret = join(fx.storage.path, 'secret.wav');
      writeFileSync(secret, files.wav);
      const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXTINF:3,\nfile://${secret}\n#EXT-X-ENDLIST\n`;
      const concat = `ffconcat version 1.0\nfile ${secret}\n`;
      for (const text of [playlist, concat]) {
        const res = await uploadAudio({ bytes: Buffer.from(text), name: 'greeting.mp3', type: 'audio/mpeg' });
        assert.equal(res.status, 415, text);
        assert.equal(res.body.error.code, 'Support:UnsupportedMediaType');
      }
    });

    it('applies the limit of the detected type: a 6 MB PNG is a 413', async () => {
      const before = await mediaRows();
      const bigPng = Buffer.concat([files.png, Buffer.alloc(6 * MB)]);
      const res = await upload({ bytes: bigPng, name: 'poster.png', type: 'image/png' });
      assert.equal(res.status, 413);
      assert.equal(res.body.error.code, 'Support:FileTooLarge');
      assert.equal(res.body.message, 'The file is larger than 5 MB, the limit for PNG images.');
      // The same number of bytes is fine as a PDF (limit 100 MB).
      const bigPdf = await upload({ bytes: Buffer.concat([files.pdf, Buffer.alloc(6 * MB)]), name: 'big.pdf', type: 'application/pdf' });
      assert.equal(bigPdf.status, 200);
      assert.equal(await mediaRows(), before + 1);
      assert.deepEqual(tempFiles(), []);
    });

    it('answers 413 to a 60 MB audio upload long before it has been sent, and keeps no partial file', async () => {
      const res = await streamUpload(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', files.mp3, 60 * MB);
      assert.equal(res.status, 413);
      assert.equal(res.body.error.code, 'Support:FileTooLarge');
      assert.equal(res.body.message, 'The file is larger than 10 MB, the limit for audio files.');
      // What was sent is the 10 MB the server read plus what the socket buffers held.
      assert.ok(res.sentBeforeResponse < 20 * MB, `${(res.sentBeforeResponse / MB).toFixed(1)} MB sent before the 413`);
      console.log(`  413 after ${(res.sentBeforeResponse / MB).toFixed(1)} MB of ${res.totalBytes / MB} MB had been sent`);
      assert.deepEqual(tempFiles(), []);
      // The server is still fine.
      assert.equal((await fx.t.http.get('/health/live')).status, 200);
    });

    it('converts WAV and MP3 to WAV 8 kHz mono 16-bit PCM and reports the duration', async () => {
      for (const input of [
        { bytes: files.wav, name: 'welcome.wav', type: 'audio/wav' },
        { bytes: files.mp3, name: 'Welcome Message.mp3', type: 'audio/mpeg' },
      ]) {
        const res = await uploadAudio(input);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(Object.keys(res.body).sort(), UPLOADED_FIELDS);
        assert.equal(res.body.contentType, 'audio/wav');
        assert.equal(res.body.mediaType, 'audio');
        assert.equal(res.body.fileName, input.name.replace(/ /g, '_').replace(/\.\w+$/, '.wav'));
        const served = await fetchMedia(res.body.url);
        assert.equal(served.status, 200);
        assert.equal(served.headers.get('content-type'), 'audio/wav');
        const wav = Buffer.from(await served.arrayBuffer());
        assert.equal(wav.length, res.body.size);
        const format = parseWavHeader(wav);
        assert.deepEqual(
          {
            audioFormat: format.audioFormat,
            channels: format.channels,
            sampleRate: format.sampleRate,
            bitsPerSample: format.bitsPerSample,
          },
          { audioFormat: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16 },
        );
        assert.equal(wav.length, 44 + format.dataBytes, 'a bare 44-byte header');
        // 3 s of tone; MP3 adds up to a frame of encoder delay and padding.
        assert.ok(Math.abs(res.body.durationMs - 3000) <= 60, `${input.name}: ${res.body.durationMs} ms`);
        assert.equal(res.body.durationMs, format.durationMs);
      }
    });

    it('needs the file in its field: missing, misnamed or not multipart is a 400', async () => {
      const empty = new FormData();
      empty.append('note', 'no file here');
      const noFile = await fetch(`${fx.t.baseUrl}/v1/support/upload`, {
        method: 'POST',
        body: empty,
        headers: { authorization: `Bearer ${fx.a.token}` },
      });
      assert.equal(noFile.status, 400);
      const body = (await noFile.json()) as any;
      assert.equal(body.error.code, 'Support:FileRequired');
      assert.equal(body.message, "Send the file as multipart/form-data in the field 'file'.");
      const misnamed = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'file', {
        bytes: files.mp3,
        name: 'a.mp3',
        type: 'audio/mpeg',
      });
      assert.equal(misnamed.status, 400);
      assert.equal(misnamed.body.error.code, 'Support:FileRequired');
      assert.deepEqual(misnamed.body.error.validationErrors[0].members, ['audioFile']);
      const json = await fx.a.api.post('/v1/support/upload', { file: 'aGVsbG8=' });
      assert.equal(json.status, 400);
      assert.equal(json.body.error.code, 'Support:FileRequired');
      const emptyFile = await upload({ bytes: Buffer.alloc(0), name: 'empty.png', type: 'image/png' });
      assert.equal(emptyFile.status, 400);
      assert.equal(emptyFile.body.error.code, 'Support:EmptyFile');
      assert.deepEqual(tempFiles(), []);
    });

    it('accepts the field name in any case', async () => {
      const res = await uploadFile(fx.t.baseUrl, '/v1/support/upload', fx.a.token, 'File', {
        bytes: files.png,
        name: 'x.png',
        type: 'image/png',
      });
      assert.equal(res.status, 200);
    });

    it('refuses both routes without a token (401)', async () => {
      const res = await upload({ bytes: files.png, name: 'logo.png', type: 'image/png' }, null);
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'Auth:Unauthorized');
      const audio = await uploadAudio({ bytes: files.mp3, name: 'a.mp3', type: 'audio/mpeg' }, null);
      assert.equal(audio.status, 401);
    });

    it('stores files for code that has no request (MediaStorage.save): a buffer, or a copy of a file', async () => {
      const storage = fx.t.app.get(MediaStorage);
      const fromBuffer = await storage.save(
        fx.a.workspaceId,
        { buffer: files.png },
        { fileName: 'Résumé photo.png', contentType: 'image/png', mediaType: 'image', durationMs: null },
      );
      assert.equal(fromBuffer.fileName, 'Resume_photo.png');
      assert.equal(fromBuffer.size, files.png.length);
      const served = await fetchMedia(fromBuffer.url);
      assert.ok(Buffer.from(await served.arrayBuffer()).equals(files.png));

      const source = join(fx.storage.path, 'outside.wav');
      writeFileSync(source, files.wav);
      const copied = await storage.save(
        fx.a.workspaceId,
        { path: source },
        { fileName: 'prompt.wav', contentType: 'audio/wav', mediaType: 'audio', durationMs: 3000.4 },
      );
      assert.ok(existsSync(source), 'a path is copied unless move is set');
      assert.deepEqual(
        { size: copied.size, durationMs: copied.durationMs, mediaType: copied.mediaType },
        { size: files.wav.length, durationMs: 3000, mediaType: 'audio' },
      );
      assert.notEqual(new URL(copied.url).pathname.split('/')[2], new URL(fromBuffer.url).pathname.split('/')[2]);
    });

    it('serves byte ranges, and 404s unknown keys and names in the envelope', async () => {
      const { body } = await upload({ bytes: files.pdf, name: 'doc.pdf', type: 'application/pdf' });
      const partial = await fetchMedia(body.url, { headers: { range: 'bytes=0-7' } });
      assert.equal(partial.status, 206);
      assert.equal(partial.headers.get('content-range'), `bytes 0-7/${files.pdf.length}`);
      assert.equal(Buffer.from(await partial.arrayBuffer()).toString('latin1'), '%PDF-1.4');
      const head = await fetchMedia(body.url, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-type'), 'application/pdf');
      assert.equal(head.headers.get('content-length'), String(files.pdf.length));
      const unsatisfiable = await fetchMedia(body.url, { headers: { range: `bytes=${files.pdf.length + 10}-` } });
      assert.equal(unsatisfiable.status, 416);
      assert.equal(((await unsatisfiable.json()) as any).error.code, 'Request:Failed');

      const key = new URL(body.url).pathname.split('/')[2];
      for (const path of [`/media/${'A'.repeat(32)}/doc.pdf`, `/media/${key}/other.pdf`, '/media/short/doc.pdf', `/media/${key}`]) {
        const res = await fx.t.http.get(path);
        assert.equal(res.status, 404, path);
        assert.equal(res.body.error.code, path === `/media/${key}` ? 'Request:NotFound' : 'Media:NotFound', path);
      }
    });

    it('serves files so that nothing in them runs on the API origin: sandboxed, not sniffed, documents as downloads', async () => {
      const scripted = await upload({
        bytes: minimalPdf({ openActionScript: 'app.alert(document.cookie)' }),
        name: 'x.pdf',
        type: 'application/pdf',
      });
      assert.equal(scripted.status, 200, JSON.stringify(scripted.body));
      assert.equal(scripted.body.contentType, 'application/pdf');
      const storage = fx.t.app.get(MediaStorage);
      const saved = (contentType: string, fileName: string) =>
        storage.save(
          fx.a.workspaceId,
          { buffer: Buffer.from('<script>alert(1)</script>') },
          { fileName, contentType, mediaType: 'document', durationMs: null },
        );
      const image = await upload({ bytes: files.png, name: 'logo.png', type: 'image/png' });
      const audio = await uploadAudio({ bytes: files.wav, name: 'hello.wav', type: 'audio/wav' });
      const cases = [
        { url: scripted.body.url, disposition: 'attachment; filename="x.pdf"' },
        { url: (await saved('text/html', 'page.html')).url, disposition: 'attachment; filename="page.html"' },
        { url: (await saved('image/svg+xml', 'drawing.svg')).url, disposition: 'attachment; filename="drawing.svg"' },
        { url: image.body.url, disposition: 'inline; filename="logo.png"' },
        { url: audio.body.url, disposition: `inline; filename="${audio.body.fileName}"` },
      ];
      for (const c of cases) {
        for (const init of [{}, { method: 'HEAD' }, { headers: { range: 'bytes=0-3' } }]) {
          const served = await fetchMedia(c.url, init);
          assert.ok(served.status === 200 || served.status === 206, `${c.url}: ${served.status}`);
          assert.equal(served.headers.get('content-disposition'), c.disposition, c.url);
          assert.equal(served.headers.get('content-security-policy'), 'sandbox', c.url);
          assert.equal(served.headers.get('x-content-type-options'), 'nosniff', c.url);
          await served.arrayBuffer();
        }
      }
    });
  },
);

describeWithApp(
  'FFMPEG_PATH and FFMPEG_TIMEOUT_MS',
  {
    peers: {
      dir: async () => {
        const dir = TempDir.create('ffmpeg-timeout-');
        // An "ffmpeg" that never finishes.
        writeFileSync(join(dir.path, 'stuck-ffmpeg'), '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
        return dir;
      },
    },
    env: ({ dir }) => ({ STORAGE_DIR: join(dir.path, 'storage'), FFMPEG_PATH: join(dir.path, 'stuck-ffmpeg'), FFMPEG_TIMEOUT_MS: '1000' }),
    workspaces: 1,
  },
  (fx) => {
    it('uses the configured binary and answers 422 when a conversion runs past the limit', async () => {
      const mp3 = (await mediaFixtures()).mp3;
      const started = Date.now();
      const res = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: mp3,
        name: 'a.mp3',
        type: 'audio/mpeg',
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, 'Support:ConversionTimedOut');
      assert.equal(res.body.message, 'The audio could not be converted within 1 s.');
      assert.ok(Date.now() - started < 5000);
      assert.deepEqual(readdirSync(join(fx.dir.path, 'storage', 'tmp')), []);
    });
  },
);
