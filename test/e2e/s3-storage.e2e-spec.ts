import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { parseWavHeader } from '../../src/media/wav.js';
import * as corpus from '../support/cloud-notifications.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeTwilio } from '../support/fake-twilio.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { mediaFixtures, minimalPdf, uploadFile } from '../support/media-fixtures.js';
import { S3Server } from '../support/s3-server.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TWILIO_AUTH_TOKEN = 'twilio-auth-token-s3-0123456789ab';
const TWILIO_ACCOUNT_SID = 'AC0123456789abcdef0123456789abcd53';
const CLOUD = { phoneNumberId: '3098853', token: 'EAAG-s3-storage', appSecret: 's3-storage-app-secret', phoneNumber: '+14155550853' };
const CONTACT = '14155550854';
/** Each process's own STORAGE_DIR: they share the database, Redis and the bucket, and nothing else. */
const apiDir = mkdtempSync(join(tmpdir(), 's3-api-'));
const workerDir = mkdtempSync(join(tmpdir(), 's3-worker-'));

type Fetch = (init?: RequestInit) => Promise<Response>;

/**
 * What a media URL answers, request by request, as the local store (@fastify/send) answers: the
 * S3 suite below runs the same assertions, so both stores keep one HTTP behaviour.
 */
async function assertServedLikeAFile(get: Fetch, bytes: Buffer, contentType: string): Promise<void> {
  const size = bytes.length;
  const full = await get();
  assert.equal(full.status, 200);
  assert.deepEqual(Buffer.from(await full.arrayBuffer()), bytes);
  assert.equal(full.headers.get('content-type'), contentType);
  assert.equal(full.headers.get('content-length'), String(size));
  assert.equal(full.headers.get('accept-ranges'), 'bytes');
  assert.equal(full.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(full.headers.get('content-security-policy'), 'sandbox');
  assert.equal(full.headers.get('x-content-type-options'), 'nosniff');
  const etag = full.headers.get('etag')!;
  const lastModified = full.headers.get('last-modified')!;
  assert.ok(etag && lastModified, 'validators');

  const head = await get({ method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('content-length'), String(size));
  assert.equal((await head.arrayBuffer()).byteLength, 0);

  const ranges: Array<[string, number, number]> = [
    ['bytes=0-7', 0, 7],
    ['bytes=-4', size - 4, size - 1],
    [`bytes=${size - 3}-`, size - 3, size - 1],
    [`bytes=5-${size + 100}`, 5, size - 1],
  ];
  for (const [range, start, end] of ranges) {
    const partial = await get({ headers: { range } });
    assert.equal(partial.status, 206, range);
    assert.equal(partial.headers.get('content-range'), `bytes ${start}-${end}/${size}`, range);
    assert.equal(partial.headers.get('content-length'), String(end - start + 1), range);
    assert.deepEqual(Buffer.from(await partial.arrayBuffer()), bytes.subarray(start, end + 1), range);
  }
  const headRange = await get({ method: 'HEAD', headers: { range: 'bytes=2-5' } });
  assert.equal(headRange.status, 206);
  assert.equal(headRange.headers.get('content-range'), `bytes 2-5/${size}`);
  const several = await get({ headers: { range: 'bytes=0-1,4-5' } });
  assert.equal(several.status, 200, 'several ranges: the whole file');
  assert.equal((await several.arrayBuffer()).byteLength, size);
  for (const range of [`bytes=${size + 10}-`, 'bytes=9-3']) {
    const unsatisfiable = await get({ headers: { range } });
    assert.equal(unsatisfiable.status, 416, range);
    assert.equal(((await unsatisfiable.json()) as { statusCode: number }).statusCode, 416, 'the error envelope');
  }

  const expectations: Array<[Record<string, string>, number]> = [
    [{ 'if-none-match': etag }, 304],
    [{ 'if-modified-since': lastModified }, 304],
    [{ 'if-none-match': etag, 'cache-control': 'no-cache' }, 200],
    [{ 'if-none-match': '"another"' }, 200],
    [{ 'if-match': '"another"' }, 412],
    [{ 'if-match': etag }, 200],
    [{ 'if-unmodified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' }, 412],
    [{ range: 'bytes=0-3', 'if-range': etag }, 206],
    [{ range: 'bytes=0-3', 'if-range': '"another"' }, 200],
    [{ range: 'bytes=0-3', 'if-range': 'Mon, 01 Jan 2024 00:00:00 GMT' }, 200],
  ];
  for (const [headers, status] of expectations) {
    // fetch() adds `Cache-Control: no-cache` to a conditional request unless it carries its own.
    const res = await get({ headers: { 'cache-control': 'max-age=0', ...headers } });
    assert.equal(res.status, status, JSON.stringify(headers));
    await res.arrayBuffer();
  }
}

/** The reference: the same requests against local disk, the zero-configuration default. */
describeWithApp('Media URLs of the local disk store (the reference for the S3 store)', {}, (fx) => {
  it('answers GET, HEAD, ranges and conditional requests', async () => {
    const pdf = minimalPdf();
    const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload', fx.a.token, 'file', {
      bytes: pdf,
      name: 'a.pdf',
      type: 'application/pdf',
    });
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
    const path = new URL(uploaded.body.url as string).pathname;
    await assertServedLikeAFile((init) => fetch(`${fx.t.baseUrl}${path}`, init), pdf, 'application/pdf');
  });
});

/**
 * Media in an S3-compatible bucket, with an API process (this test's app, APP_ROLE=api) and a
 * worker process (the production build, APP_ROLE=worker) that each have their own STORAGE_DIR:
 * what one stores, the other reads, through the bucket alone.
 */
describeWithApp(
  'Media in S3-compatible object storage, shared by an API and a worker with separate disks',
  {
    peers: {
      s3: () => S3Server.start(),
      twilio: () => FakeTwilio.start(TWILIO_AUTH_TOKEN),
      cloud: () => FakeCloudApi.start(),
      receiver: () => WebhookReceiver.start(),
      // The API's port, chosen before it boots: PUBLIC_BASE_URL (media and callback URLs) names it.
      api: async () => ({ port: await freePort(), close: () => undefined }),
    },
    env: ({ s3, twilio, cloud, api }) => ({
      ...s3.env(),
      APP_ROLE: 'api',
      PORT: String(api.port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${api.port}`,
      STORAGE_DIR: apiDir,
      TWILIO_API_URL: twilio.url,
      WHATSAPP_GRAPH_URL: cloud.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
    }),
  },
  (fx) => {
    let worker: ChildProcess;
    let workerOutput = () => '';
    let files: Awaited<ReturnType<typeof mediaFixtures>>;
    let cloudChannel: { id: string };

    const media = (url: string, init?: RequestInit) => {
      assert.ok(url.startsWith(`${fx.t.baseUrl}/media/`), url);
      return fetch(url, init);
    };
    const upload = async (path: string, field: string, file: { bytes: Buffer; name: string; type: string }) => {
      const res = await uploadFile(fx.t.baseUrl, path, fx.a.token, field, file);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { id: string; url: string; size: number; contentType: string };
    };
    const objectOf = (url: string) => `media/${new URL(url).pathname.split('/')[2]}`;
    /** Neither process keeps media on its disk, and each removes its temp files once its work is done. */
    const assertNothingOnDisk = async () => {
      for (const dir of [apiDir, workerDir]) {
        assert.ok(!existsSync(join(dir, 'media')), `${dir} has no media directory`);
        const temp = join(dir, 'tmp');
        await waitFor(async () => !existsSync(temp) || readdirSync(temp).length === 0, 5_000, `${temp} to be empty`);
      }
    };
    const startMain = (env: Record<string, string>) => {
      let output = '';
      // startTestApp left this app's configuration (database, Redis prefix, secrets, S3) in process.env.
      const child = spawn(process.execPath, ['dist/src/main.js'], {
        env: { ...process.env, MIGRATIONS_RUN: 'false', LOG_LEVEL: 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { child, output: () => output, exit };
    };

    before(async () => {
      files = await mediaFixtures();
      // Two tries at an inbound file (1 s apart), so the outage test sees the last one give up.
      const started = startMain({ APP_ROLE: 'worker', STORAGE_DIR: workerDir, WHATSAPP_MEDIA_DOWNLOAD_ATTEMPTS: '2' });
      [worker, workerOutput] = [started.child, started.output];
      await waitFor(async () => /Worker started/.test(started.output()), 30_000, 'the worker');
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud WA',
        type: 2,
        phoneNumber: CLOUD.phoneNumber,
        webhookUrl: fx.receiver.url('/wa'),
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: CLOUD.phoneNumberId,
          wabaId: '853',
          accessToken: CLOUD.token,
          appSecret: CLOUD.appSecret,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      cloudChannel = created.body;
    });
    after(async () => {
      if (process.env.TEST_LOG_LEVEL) console.log(workerOutput());
      worker?.kill('SIGTERM');
      if (worker?.exitCode === null) await new Promise((resolve) => worker.once('exit', resolve));
      rmSync(apiDir, { recursive: true, force: true });
      rmSync(workerDir, { recursive: true, force: true });
    });

    it('stores an upload as an object of the bucket and serves it with the local store’s HTTP behaviour', async () => {
      const pdf = minimalPdf();
      const uploaded = await upload('/v1/support/upload', 'file', { bytes: pdf, name: 'Invoice.pdf', type: 'application/pdf' });
      const objects = await fx.s3.objects('media/');
      assert.equal(objects.get(objectOf(uploaded.url)), pdf.length, 'the object, under S3_KEY_PREFIX');
      await assertServedLikeAFile((init) => media(uploaded.url, init), pdf, 'application/pdf');
      await assertNothingOnDisk();
    });

    it('answers 404 in the envelope for an unknown key, a wrong name, and a row whose object is gone', async () => {
      const uploaded = await upload('/v1/support/upload', 'file', { bytes: files.png, name: 'logo.png', type: 'image/png' });
      const url = new URL(uploaded.url);
      const [, , key] = url.pathname.split('/');
      for (const path of [`/media/${'A'.repeat(32)}/logo.png`, `/media/${key}/other.png`]) {
        const res = await fetch(`${fx.t.baseUrl}${path}`);
        assert.equal(res.status, 404, path);
        assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'Media:NotFound');
      }
      await fx.s3.remove(objectOf(uploaded.url));
      for (const method of ['GET', 'HEAD']) {
        const res = await media(uploaded.url, { method });
        assert.equal(res.status, 404, method);
      }
    });

    it('converts uploaded audio with ffmpeg in the API and plays it, with the worker’s speech, in a call the voice provider fetches', async () => {
      const greeting = await upload('/v1/support/upload-audio', 'audioFile', {
        bytes: files.mp3,
        name: 'greeting.mp3',
        type: 'audio/mpeg',
      });
      assert.equal(greeting.contentType, 'audio/wav');
      const before = (await fx.s3.objects('media/')).size;
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        type: 1,
        whatsApp: undefined,
        phoneNumber: '+14155550855',
        voice: { provider: 'twilio', accountSid: TWILIO_ACCOUNT_SID, authToken: TWILIO_AUTH_TOKEN, fromNumber: '+14155550855' },
      });
      fx.twilio.expectCall({ answer: true, digits: ['1'], durationSeconds: 4 });
      const created = await fx.a.api.post('/v1/outbound-ivr', {
        channelId: channel.id,
        destinationNumber: '966501234567',
        welcomeMessageFileUrl: greeting.url,
        ttsText: 'Your parcel arrives tomorrow. Press one to confirm.',
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl: fx.receiver.url('/ivr', 'localhost'),
      });
      assert.equal(created.status, 200, created.text);
      const outcome = await waitFor(async () => fx.receiver.at('/ivr')[0], 30_000, "the call's outcome");
      assert.equal((verifySignature(outcome, fx.a.webhookSecret) as { pressedDigit: string }).pressedDigit, '1');

      // What Twilio would fetch: every <Play> of the call, served by the API from the bucket.
      const played = [...fx.twilio.calls.at(-1)!.twiml[0].matchAll(/<Play>([^<]+)<\/Play>/g)].map((m) => m[1]);
      assert.equal(played[0], greeting.url);
      const speechUrl = played.find((url) => url !== greeting.url)!;
      assert.match(speechUrl, /\/media\/[A-Za-z0-9_-]{32}\/speech-female\.wav$/, 'synthesized by the worker');
      for (const url of [greeting.url, speechUrl]) {
        const res = await media(url);
        assert.equal(res.status, 200, url);
        assert.equal(res.headers.get('content-type'), 'audio/wav');
        const format = parseWavHeader(Buffer.from(await res.arrayBuffer()));
        assert.deepEqual([format.sampleRate, format.channels, format.bitsPerSample], [8000, 1, 16], url);
        assert.ok(format.durationMs > 1000, `${url}: ${format.durationMs} ms`);
      }
      const objects = await fx.s3.objects('media/');
      assert.equal(objects.size, before + 1, 'the speech, stored by the worker in the bucket');
      assert.ok(objects.has(objectOf(speechUrl)));
      await assertNothingOnDisk();
    });

    it('stores an inbound WhatsApp file in the worker and serves it from the API; the worker converts an upload to OGG/Opus for a send', async () => {
      const photo = files.jpeg;
      const sha = fx.cloud.addMedia('853001', photo, 'image/jpeg');
      const status = await FakeCloudApi.notify(
        `${fx.t.baseUrl}/v1/whatsapp/webhooks/${cloudChannel.id}`,
        CLOUD.appSecret,
        corpus.inbound({ phone: CONTACT }, 'wamid.s3-photo', corpus.content.image('853001', sha, 'From S3')),
      );
      assert.equal(status, 200);
      const hook = await waitFor(
        async () => fx.receiver.at('/wa').find((r) => r.body.includes('wamid.s3-photo')),
        30_000,
        'the inbound webhook',
      );
      const payload = verifySignature(hook, fx.a.webhookSecret) as { mediaUrl: string; size: number };
      assert.equal(payload.size, photo.length);
      const served = await media(payload.mediaUrl);
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), photo);
      assert.equal((await fx.s3.objects(objectOf(payload.mediaUrl))).get(objectOf(payload.mediaUrl)), photo.length);

      // The contact wrote, so the service window is open: a WAV upload goes out as a voice note.
      const voice = await upload('/v1/support/upload-audio', 'audioFile', { bytes: files.wav, name: 'note.wav', type: 'audio/wav' });
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendAudio', {
        channelId: cloudChannel.id,
        toNumber: CONTACT,
        mediaId: voice.id,
      });
      assert.equal(sent.status, 200, sent.text);
      const uploadedToMeta = await waitFor(
        async () => fx.cloud.uploads.find((u) => u.fields.type === 'audio/ogg'),
        30_000,
        "the voice note's upload to the Cloud API",
      );
      assert.equal(uploadedToMeta.file?.head.subarray(0, 4).toString('latin1'), 'OggS');
      assert.equal(uploadedToMeta.file?.name, 'note.ogg');
      await assertNothingOnDisk();
    });

    it('refuses to start, naming the bucket, when the bucket is missing or the credentials are wrong', async () => {
      const missing = startMain({ APP_ROLE: 'worker', STORAGE_DIR: workerDir, S3_BUCKET: 'no-such-bucket' });
      const forged = startMain({ APP_ROLE: 'worker', STORAGE_DIR: workerDir, S3_SECRET_ACCESS_KEY: 'not-the-secret' });
      const [missingExit, forgedExit] = await Promise.all([missing.exit, forged.exit]);
      assert.notEqual(missingExit, 0);
      assert.match(missing.output(), /Object storage is not usable: bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+: NoSuchBucket/);
      assert.notEqual(forgedExit, 0);
      assert.match(forged.output(), /Object storage is not usable: bucket "media" at .*SignatureDoesNotMatch/);
    });

    it('while the bucket does not answer: readiness says so, requests fail fast with a 503 envelope; then it recovers', async () => {
      const kept = await upload('/v1/support/upload', 'file', { bytes: files.png, name: 'kept.png', type: 'image/png' });
      await fx.s3.stop();
      try {
        const ready = await fetch(`${fx.t.baseUrl}/health/ready`);
        assert.equal(ready.status, 503);
        const health = (await ready.json()) as { error: Record<string, { status: string; message: string }> };
        assert.equal(health.error.storage.status, 'down');
        assert.match(health.error.storage.message, /bucket "media"/);

        const started = Date.now();
        const refused = await uploadFile(fx.t.baseUrl, '/v1/support/upload', fx.a.token, 'file', {
          bytes: files.png,
          name: 'later.png',
          type: 'image/png',
        });
        const took = Date.now() - started;
        assert.equal(refused.status, 503, JSON.stringify(refused.body));
        assert.equal(refused.body.error.code, 'Storage:Unavailable');
        assert.ok(took < 10_000, `answered in ${took} ms`);
        const unserved = await media(kept.url);
        assert.equal(unserved.status, 503);
        assert.equal(unserved.headers.get('retry-after'), '5');

        // The worker fetches an inbound file, cannot store it, tries again, then sends the webhook without it.
        const photo = files.png;
        const sha = fx.cloud.addMedia('853002', photo, 'image/jpeg');
        const notified = await FakeCloudApi.notify(
          `${fx.t.baseUrl}/v1/whatsapp/webhooks/${cloudChannel.id}`,
          CLOUD.appSecret,
          corpus.inbound({ phone: CONTACT }, 'wamid.s3-outage', corpus.content.image('853002', sha)),
        );
        assert.equal(notified, 200);
        const hook = await waitFor(
          async () => fx.receiver.at('/wa').find((r) => r.body.includes('wamid.s3-outage')),
          20_000,
          'the inbound webhook without its file',
        );
        const payload = verifySignature(hook, fx.a.webhookSecret) as { mediaUrl: string | null; errorCode: string };
        assert.deepEqual([payload.mediaUrl, payload.errorCode], [null, 'Storage:Unavailable']);
        assert.equal(fx.cloud.mediaRequests('853002').downloads.length, 2, 'fetched on each of the two tries');
      } finally {
        await fx.s3.resume();
      }
      await waitFor(async () => (await fetch(`${fx.t.baseUrl}/health/ready`)).status === 200, 10_000, 'readiness again');
      // The object readiness reads, removed by someone else, is written again rather than reported missing.
      await fx.s3.remove('media/.storage-check');
      assert.equal((await fetch(`${fx.t.baseUrl}/health/ready`)).status, 200);
      assert.ok((await fx.s3.objects('media/')).has('media/.storage-check'));
      await upload('/v1/support/upload', 'file', { bytes: files.png, name: 'later.png', type: 'image/png' });
      const served = await media(kept.url);
      assert.equal(served.status, 200);
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), files.png);
    });
  },
);
