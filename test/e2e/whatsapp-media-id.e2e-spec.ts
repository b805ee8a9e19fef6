import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, it } from 'node:test';
import { DataSource } from 'typeorm';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import type { HttpClient } from '../support/http-client.js';
import { mediaFixtures, uploadFile } from '../support/media-fixtures.js';
import { TempDir } from '../support/temp-dir.js';

const WA = '/v1/whatsapp/service-account';
const CHANNELS = [
  { phoneNumberId: '3098761', token: 'EAAG-media-one', appSecret: 'media-secret-one', phoneNumber: '+14155550881' },
  { phoneNumberId: '3098762', token: 'EAAG-media-two', appSecret: 'media-secret-two', phoneNumber: '+14155550882' },
];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Media sends by `mediaId` (API.md §7.1): uploaded to the Cloud API's `/media` once per channel, kept, and sent by id. */
describeWithApp(
  'WhatsApp media sends by uploaded file (mediaId)',
  {
    peers: { storage: async () => TempDir.create('wa-media-id-'), fake: () => FakeCloudApi.start() },
    env: ({ storage, fake }) => ({ STORAGE_DIR: storage.path, WHATSAPP_GRAPH_URL: fake.url, RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' }),
  },
  (fx) => {
    let files: Awaited<ReturnType<typeof mediaFixtures>>;
    let cloud: Array<{ id: string }>;
    let sandbox: { id: string };
    let bChannel: { id: string };
    const to = '14155550801';

    const send = (api: HttpClient, operation: string, body: Record<string, unknown>) => api.post(`${WA}/${operation}`, body);
    const upload = async (bytes: Buffer, name: string, type: string, path = '/v1/support/upload', field = 'file') => {
      const res = await uploadFile(fx.t.baseUrl, path, fx.a.token, field, { bytes, name, type });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as { id: string; fileName: string; size: number; contentType: string; url: string };
    };
    const timeline = async (channelId: string) => {
      const created = await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${to}` });
      const page = await fx.a.api.get(`/v2/conversations/service-account/${created.body.conversation.id}/timeline?MaxResultCount=200`);
      return page.body.items as Array<{
        eventId: string;
        status: string;
        sourceId: string | null;
        attachment: Record<string, unknown> | null;
        body: string;
      }>;
    };
    const settled = (channelId: string, eventId: string, status = 'Sent') =>
      waitFor(
        async () => (await timeline(channelId)).find((e) => e.eventId === eventId && e.status === status),
        15_000,
        `event ${eventId} ${status}`,
      );
    const uploadsTo = (channel: number) => fx.fake.uploads.filter((u) => u.path === `/v25.0/${CHANNELS[channel].phoneNumberId}/media`);
    const sendsFrom = (channel: number) => fx.fake.sends.filter((s) => s.path === `/v25.0/${CHANNELS[channel].phoneNumberId}/messages`);

    before(async () => {
      files = await mediaFixtures();
      cloud = [];
      for (const [i, c] of CHANNELS.entries()) {
        const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
          name: `Cloud ${i}`,
          type: 2,
          phoneNumber: c.phoneNumber,
          whatsApp: {
            provider: 'cloud-api',
            phoneNumberId: c.phoneNumberId,
            wabaId: '557',
            accessToken: c.token,
            appSecret: c.appSecret,
            verifyToken: 'v',
          },
        });
        assert.equal(created.status, 200, created.text);
        cloud.push(created.body);
        // The contact writes on each channel: the service window is open.
        const status = await FakeCloudApi.notify(
          `${fx.t.baseUrl}/v1/whatsapp/webhooks/${created.body.id}`,
          c.appSecret,
          FakeCloudApi.inboundText(to, `wamid.media-in-${i}`, 'hi'),
        );
        assert.equal(status, 200);
        await waitFor(
          async () => (await timeline(created.body.id)).some((e) => e.sourceId === `wamid.media-in-${i}`),
          10_000,
          'the inbound message',
        );
      }
      sandbox = await createChannel(fx.t, fx.a.workspaceId, { phoneNumber: '+14155550883' });
      const injected = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/inbound`, {
        fromNumber: to,
        type: 'text',
        text: 'hi',
      });
      assert.equal(injected.status, 202, injected.text);
      await waitFor(async () => (await timeline(sandbox.id)).length > 0, 10_000, 'the sandbox inbound message');
      bChannel = await createChannel(fx.t, fx.b.workspaceId, { phoneNumber: '+14155550884' });
    });

    it('uploads an image to a channel once, sends it by id every time, and uploads it again to another channel', async () => {
      const image = await upload(files.png, 'receipt.png', 'image/png');
      // Two sends at once: one upload between them.
      const [first, second] = await Promise.all([
        send(fx.a.api, 'sendImage', { channelId: cloud[0].id, toNumber: to, mediaId: image.id, caption: 'Receipt' }),
        send(fx.a.api, 'sendImage', { channelId: cloud[0].id, toNumber: to, mediaId: image.id }),
      ]);
      assert.equal(first.status, 200, first.text);
      assert.equal(second.status, 200, second.text);
      await settled(cloud[0].id, first.body.conversationEventId);
      await settled(cloud[0].id, second.body.conversationEventId);

      const uploads = uploadsTo(0);
      assert.equal(uploads.length, 1, 'one upload for two sends');
      const [up] = uploads;
      assert.equal(up.auth, `Bearer ${CHANNELS[0].token}`);
      assert.deepEqual(up.fields, { messaging_product: 'whatsapp', type: 'image/png' });
      assert.deepEqual(
        [up.file?.name, up.file?.type, up.file?.size, up.file?.sha256],
        [image.fileName, 'image/png', files.png.length, sha256(files.png)],
      );
      assert.ok(Number(up.contentLength) > files.png.length, `sent with a Content-Length (${up.contentLength})`);
      const images = sendsFrom(0).filter((s) => s.body.type === 'image');
      assert.deepEqual(
        images.map((s) => s.body.image).sort((x, y) => Object.keys(x).length - Object.keys(y).length),
        [{ id: up.id }, { id: up.id, caption: 'Receipt' }],
      );
      assert.deepEqual(images[0].body, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'image',
        image: images[0].body.image,
      });
      const event = (await timeline(cloud[0].id)).find((e) => e.eventId === first.body.conversationEventId)!;
      assert.deepEqual(
        [event.attachment?.messageType, event.attachment?.mediaId, event.attachment?.mediaUrl, event.attachment?.mimeType],
        ['Image', image.id, image.url, 'image/png'],
      );

      // A later send reuses the kept id.
      const third = await send(fx.a.api, 'sendImage', { channelId: cloud[0].id, toNumber: to, mediaId: image.id });
      await settled(cloud[0].id, third.body.conversationEventId);
      assert.equal(uploadsTo(0).length, 1);
      assert.deepEqual(sendsFrom(0).at(-1)!.body.image, { id: up.id });

      // Another channel has its own upload, with its own token.
      const other = await send(fx.a.api, 'sendImage', { channelId: cloud[1].id, toNumber: to, mediaId: image.id });
      await settled(cloud[1].id, other.body.conversationEventId);
      const otherUploads = uploadsTo(1);
      assert.equal(otherUploads.length, 1);
      assert.equal(otherUploads[0].auth, `Bearer ${CHANNELS[1].token}`);
      assert.notEqual(otherUploads[0].id, up.id);
      assert.deepEqual(sendsFrom(1).at(-1)!.body.image, { id: otherUploads[0].id });

      const kept = await fx.t.app
        .get(DataSource)
        .query(
          'SELECT channel_id, provider_media_id, extract(epoch FROM expires_at - uploaded_at) AS ttl FROM whatsapp_media_uploads WHERE media_file_id = $1 ORDER BY channel_id',
          [image.id],
        );
      assert.equal(kept.length, 2);
      assert.deepEqual(
        kept.map((k: { ttl: string }) => Number(k.ttl)),
        [30 * 86400, 30 * 86400],
      );
    });

    it('sends a PDF by id under its stored name, a video, and a voice recording converted to OGG/Opus', async () => {
      const pdf = await upload(files.pdf, 'Invoice A-17.pdf', 'application/pdf');
      const video = await upload(files.mp4, 'clip.mp4', 'video/mp4');
      const audio = await upload(files.wav, 'greeting.wav', 'audio/wav', '/v1/support/upload-audio', 'audioFile');
      const cases: Array<[string, Record<string, unknown>, string, (id: string) => Record<string, unknown>]> = [
        [
          'sendFile',
          { mediaId: pdf.id, caption: 'Invoice' },
          'application/pdf',
          (id) => ({ type: 'document', document: { id, filename: pdf.fileName, caption: 'Invoice' } }),
        ],
        [
          'sendFile',
          { mediaId: pdf.id, fileName: 'march.pdf' },
          'application/pdf',
          (id) => ({ type: 'document', document: { id, filename: 'march.pdf' } }),
        ],
        ['sendVideo', { mediaId: video.id, caption: 'Clip' }, 'video/mp4', (id) => ({ type: 'video', video: { id, caption: 'Clip' } })],
        ['sendAudio', { mediaId: audio.id }, 'audio/ogg', (id) => ({ type: 'audio', audio: { id } })],
      ];
      for (const [operation, body, uploadedType, expected] of cases) {
        const sendsBefore = sendsFrom(0).length;
        const res = await send(fx.a.api, operation, { channelId: cloud[0].id, toNumber: to, ...body });
        assert.equal(res.status, 200, `${operation}: ${res.text}`);
        await settled(cloud[0].id, res.body.conversationEventId);
        const up = fx.fake.uploads.filter((u) => u.fields.type === uploadedType).at(-1)!;
        assert.ok(up?.id, `${operation}: uploaded as ${uploadedType}`);
        const [request] = sendsFrom(0).slice(sendsBefore);
        assert.deepEqual(request.body, { messaging_product: 'whatsapp', recipient_type: 'individual', to, ...expected(up.id) }, operation);
      }
      assert.equal(fx.fake.uploads.filter((u) => u.fields.type === 'application/pdf').length, 1, 'the PDF went up once for two sends');
      assert.equal(pdf.fileName, 'Invoice_A-17.pdf');
      const voice = fx.fake.uploads.find((u) => u.fields.type === 'audio/ogg')!;
      assert.equal(voice.file?.head.subarray(0, 4).toString('latin1'), 'OggS', 'an Ogg stream');
      assert.equal(voice.file?.name, 'greeting.ogg');
      const timelineEvents = await timeline(cloud[0].id);
      assert.ok(timelineEvents.some((e) => e.body === 'Invoice_A-17.pdf' || e.body === 'Invoice'));
    });

    it('uploads again once the kept id has expired', async () => {
      const image = await upload(files.jpeg, 'photo.jpg', 'image/jpeg');
      const first = await send(fx.a.api, 'sendImage', { channelId: cloud[0].id, toNumber: to, mediaId: image.id });
      await settled(cloud[0].id, first.body.conversationEventId);
      const before = fx.fake.uploads.filter((u) => u.file?.sha256 === sha256(files.jpeg));
      assert.equal(before.length, 1);
      await fx.t.app
        .get(DataSource)
        .query("UPDATE whatsapp_media_uploads SET expires_at = now() - interval '1 minute' WHERE media_file_id = $1", [image.id]);
      const second = await send(fx.a.api, 'sendImage', { channelId: cloud[0].id, toNumber: to, mediaId: image.id });
      await settled(cloud[0].id, second.body.conversationEventId);
      const after = fx.fake.uploads.filter((u) => u.file?.sha256 === sha256(files.jpeg));
      assert.equal(after.length, 2, 'uploaded again');
      assert.deepEqual(sendsFrom(0).at(-1)!.body.image, { id: after[1].id });
      const [row] = await fx.t.app
        .get(DataSource)
        .query('SELECT provider_media_id, expires_at > now() AS valid FROM whatsapp_media_uploads WHERE media_file_id = $1', [image.id]);
      assert.deepEqual(row, { provider_media_id: after[1].id, valid: true });
    });

    it('tries the upload again after a passing failure, then sends by id', async () => {
      const image = await upload(Buffer.concat([files.png, Buffer.from('retry')]), 'retry.png', 'image/png');
      fx.fake.uploadScript.push(FakeCloudApi.error(503, 2, '(#2) Service temporarily unavailable'));
      const res = await send(fx.a.api, 'sendImage', { channelId: cloud[0].id, toNumber: to, mediaId: image.id });
      await settled(cloud[0].id, res.body.conversationEventId);
      const attempts = fx.fake.uploads.filter((u) => u.file?.size === image.size && u.path.includes(CHANNELS[0].phoneNumberId));
      assert.equal(attempts.length, 2);
      assert.equal(attempts[0].id, undefined);
      assert.deepEqual(sendsFrom(0).at(-1)!.body.image, { id: attempts[1].id });
    });

    it('refuses a file of another kind (400), and another workspace’s or an unknown file (404)', async () => {
      const pdf = await upload(files.pdf, 'doc.pdf', 'application/pdf');
      const image = await upload(files.png, 'pic.png', 'image/png');
      const mismatches: Array<[string, string, RegExp]> = [
        ['sendImage', pdf.id, /image file; it is a document/],
        ['sendVideo', image.id, /video file; it is an image file/],
        ['sendAudio', image.id, /audio file/],
        ['sendFile', image.id, /document file/],
      ];
      for (const [operation, mediaId, message] of mismatches) {
        const res = await send(fx.a.api, operation, { channelId: cloud[0].id, toNumber: to, mediaId });
        assert.equal(res.status, 400, `${operation}: ${res.text}`);
        assert.equal(res.body.error.code, 'WhatsApp:MediaTypeMismatch');
        assert.deepEqual(res.body.error.validationErrors[0].members, ['mediaId']);
        assert.match(res.body.message, message);
      }
      const foreign = await send(fx.b.api, 'sendImage', { channelId: bChannel.id, toNumber: to, mediaId: image.id });
      assert.equal(foreign.status, 404, foreign.text);
      assert.equal(foreign.body.error.code, 'Media:NotFound');
      const unknown = await send(fx.a.api, 'sendFile', {
        channelId: cloud[0].id,
        toNumber: to,
        mediaId: '01970f3e-ac6d-7e3f-9041-5c6d7e8f9a01',
      });
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(unknown.body.error.code, 'Media:NotFound');
    });

    it('sends by id through the sandbox too, recording the exact Cloud API body', async () => {
      const image = await upload(files.png, 'sandbox.png', 'image/png');
      const uploadsBefore = fx.fake.uploads.length;
      const res = await send(fx.a.api, 'sendImage', { channelId: sandbox.id, toNumber: to, mediaId: image.id, caption: 'Hi' });
      assert.equal(res.status, 200, res.text);
      await settled(sandbox.id, res.body.conversationEventId);
      const recorded = (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`)).body.items.map(
        (m: { request: Record<string, unknown> }) => m.request,
      );
      const request = recorded.find((r: { type: string }) => r.type === 'image');
      assert.match(request.image.id, /^sandbox-media-/);
      assert.deepEqual(request, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'image',
        image: { id: request.image.id, caption: 'Hi' },
      });
      assert.equal(fx.fake.uploads.length, uploadsBefore, 'nothing went to the Cloud API');
    });
  },
);
