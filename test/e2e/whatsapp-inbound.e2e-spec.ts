import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { before, it } from 'node:test';
import { createCloudChannel } from '../support/cloud-channel.js';
import * as corpus from '../support/cloud-notifications.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { waitFor } from '../support/fixtures.js';
import { minimalPdf, uploadFile } from '../support/media-fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';
import { startWorker as startWorkerProcess, stopWorkers, type WorkerProcess } from '../support/worker-process.js';

const TOKEN = 'EAAG-inbound-token';
const APP_SECRET = 'inbound-app-secret';

type Payload = Record<string, any>;

describeWithApp(
  'Inbound WhatsApp messages as Meta delivers them (signed notifications, a fake Graph API on 127.0.0.1)',
  {
    peers: {
      fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }),
      receiver: () => WebhookReceiver.start(),
    },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      WHATSAPP_MEDIA_DOWNLOAD_ATTEMPTS: '3',
    }),
    workspaces: 1,
  },
  (fx) => {
    let channel: { id: string };

    const notify = (notification: unknown) =>
      FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`, APP_SECRET, notification);
    const webhooks = (): Payload[] => fx.receiver.at('/wa').map((r) => verifySignature(r, fx.a.webhookSecret) as Payload);
    const webhooksOf = (messageId: string) => webhooks().filter((p) => p.messageId === messageId);
    const webhookOf = (messageId: string, timeoutMs = 15_000) =>
      waitFor(async () => webhooksOf(messageId)[0], timeoutMs, `the webhook of ${messageId}`);
    const timeline = async (phone: string) => {
      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: phone }))
        .body.conversation;
      return (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline?MaxResultCount=1000`)).body as {
        totalCount: number;
        items: Payload[];
      };
    };
    const eventOf = async (phone: string, messageId: string): Promise<Payload> =>
      (await timeline(phone)).items.find((e) => e.sourceId === messageId)!;
    /** The bytes a public media URL serves (the URL is under PUBLIC_BASE_URL; the app listens elsewhere in tests). */
    const mediaBytes = async (mediaUrl: string) => {
      const response = await fetch(`${fx.t.baseUrl}${new URL(mediaUrl).pathname}`);
      assert.equal(response.status, 200, mediaUrl);
      return Buffer.from(await response.arrayBuffer());
    };

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud WA',
        type: 2,
        phoneNumber: '+14155550888',
        webhookUrl: fx.receiver.url('/wa'),
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: '106540352242922',
          wabaId: '102290129340398',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      channel = created.body;
    });

    it('records every type of the corpus once, with its messageType and fields, and sends one webhook each (files fetched with the token)', async () => {
      const sender = { phone: '14155550601', userId: 'US.13491208655302741918', username: 'fatima.k', name: 'Fatima Khan' };
      const entries = corpus.inboundCorpus('c1', sender);
      for (const entry of entries) if (entry.media) fx.fake.addMedia(entry.media.id, entry.media.bytes, entry.media.mimeType);
      const [first, reactions] = [entries.filter((e) => !e.reactsTo), entries.filter((e) => e.reactsTo)];
      for (const entry of first) assert.equal(await notify(entry.notification), 200, entry.name);
      // Reactions come after the message they react to has been recorded, as they do in life.
      await webhookOf('wamid.c1.text');
      for (const entry of reactions) assert.equal(await notify(entry.notification), 200, entry.name);
      // Meta redelivers: every notification again changes nothing.
      for (const entry of entries) assert.equal(await notify(entry.notification), 200);

      await waitFor(async () => entries.every((e) => webhooksOf(e.messageId).length > 0), 30_000, 'a webhook for every message');
      const events = await timeline('+14155550601');
      const textEvent = events.items.find((e) => e.sourceId === 'wamid.c1.text')!;
      for (const entry of entries) {
        const [payload, ...more] = webhooksOf(entry.messageId);
        assert.equal(more.length, 0, `${entry.name}: one webhook`);
        assert.equal(payload.messageType, entry.messageType, entry.name);
        assert.equal(payload.body, entry.body, entry.name);
        assert.equal(payload.direction, 'Inbound');
        assert.equal(payload.channelId, channel.id);
        assert.deepEqual(
          [payload.whatsAppUserId, payload.whatsAppUsername, payload.profileName],
          ['US.13491208655302741918', 'fatima.k', 'Fatima Khan'],
          entry.name,
        );
        for (const [field, value] of Object.entries(entry.fields)) assert.deepEqual(payload[field], value, `${entry.name}.${field}`);
        const event = events.items.filter((e) => e.sourceId === entry.messageId);
        assert.equal(event.length, 1, `${entry.name}: one timeline event`);
        assert.equal(event[0].attachment.messageType, entry.messageType);
        assert.equal(event[0].body, entry.body);
        assert.equal(payload.conversationId, event[0].conversationId);
        if (entry.media) {
          assert.ok(payload.mediaUrl?.startsWith('http://localhost:3000/media/'), `${entry.name}: ${payload.mediaUrl}`);
          assert.deepEqual(await mediaBytes(payload.mediaUrl), entry.media.bytes, `${entry.name}: the same bytes`);
          assert.equal(event[0].attachment.mediaUrl, payload.mediaUrl);
          assert.equal(event[0].attachment.mediaStatus, 'Stored');
          assert.equal(payload.errorCode, null);
          const { info, downloads } = fx.fake.mediaRequests(entry.media.id);
          assert.ok(info.length >= 1 && info.every((r) => r.auth === `Bearer ${TOKEN}`));
          assert.ok(downloads.length >= 1 && downloads.every((r) => r.auth === `Bearer ${TOKEN}`));
        } else {
          assert.equal(payload.mediaUrl, null, entry.name);
        }
        if (entry.reactsTo) {
          assert.equal(payload.reactedMessageId, textEvent.eventId, `${entry.name}: our id of the message reacted to`);
          assert.equal(event[0].attachment.reactedMessageId, textEvent.eventId);
        } else {
          assert.equal(payload.reactedMessageId, null, entry.name);
        }
      }
      assert.equal(events.totalCount, entries.length);

      const byName = (name: string) => events.items.find((e) => e.sourceId === `wamid.c1.${name}`)!;
      assert.deepEqual(byName('location').location, {
        latitude: 24.7136,
        longitude: 46.6753,
        name: 'Kingdom Centre',
        address: 'King Fahd Rd, Riyadh',
      });
      assert.equal(byName('voice').attachment.voice, true);
      const contacts = webhooksOf('wamid.c1.contacts')[0].contacts;
      assert.equal(contacts.length, 1);
      assert.deepEqual(contacts[0].name, {
        formattedName: 'Björn Jonsson',
        firstName: 'Björn',
        lastName: 'Jonsson',
        middleName: null,
        prefix: null,
        suffix: null,
      });
      assert.deepEqual(contacts[0].phones, [{ phone: '+1 (415) 555-0177', waId: '14155550177', type: 'WORK' }]);
      assert.deepEqual(contacts[0].org, { company: 'Lucky Shrub', department: 'Sales', title: 'Manager' });
      assert.deepEqual(byName('contacts').attachment.contacts, contacts);
      // Unsupported messages keep the provider's message as it came.
      assert.equal(byName('order').attachment.raw.type, 'order');
      assert.equal(byName('order').attachment.raw.order.product_items[0].product_retailer_id, 'di9ozbzfi4');
      assert.equal(byName('unsupported').attachment.raw.errors[0].code, 131051);
      assert.deepEqual(byName('unknown').attachment.raw.hologram, { frames: 3 });

      // The profile name named the new contact.
      const contact = await fx.a.api.get(`/v1/contacts/${textEvent.contactId}`);
      assert.equal(contact.body.name, 'Fatima Khan');
      assert.equal(contact.body.phoneNumber, '+14155550601');
    });

    it('records the corpus from a user who hides their number (no from, no wa_id: BSUID only) the same way', async () => {
      const entries = corpus.inboundCorpus('c2', { userId: 'GB.7700900123', name: 'Hidden Number' });
      for (const entry of entries) if (entry.media) fx.fake.addMedia(entry.media.id, entry.media.bytes, entry.media.mimeType);
      for (const entry of entries.filter((e) => !e.reactsTo)) assert.equal(await notify(entry.notification), 200, entry.name);
      await webhookOf('wamid.c2.text');
      for (const entry of entries.filter((e) => e.reactsTo)) assert.equal(await notify(entry.notification), 200, entry.name);
      await waitFor(async () => entries.every((e) => webhooksOf(e.messageId).length > 0), 30_000, 'a webhook for every message');
      const contactIds = new Set<string>();
      for (const entry of entries) {
        const [payload, ...more] = webhooksOf(entry.messageId);
        assert.equal(more.length, 0, entry.name);
        assert.equal(payload.messageType, entry.messageType, entry.name);
        assert.equal(payload.body, entry.body, entry.name);
        assert.equal(payload.whatsAppUserId, 'GB.7700900123');
        if (entry.media) assert.deepEqual(await mediaBytes(payload.mediaUrl), entry.media.bytes, entry.name);
        contactIds.add(payload.contactId);
      }
      assert.equal(contactIds.size, 1, 'one contact');
      const contact = (await fx.a.api.get(`/v1/contacts/${[...contactIds][0]}`)).body;
      assert.deepEqual([contact.name, contact.phoneNumber, contact.whatsAppUserId], ['Hidden Number', null, 'GB.7700900123']);
      const reaction = webhooksOf('wamid.c2.reaction')[0];
      assert.notEqual(reaction.reactedMessageId, null);
    });

    it('records a media message at once and sends its webhook once, after a download that failed twice and then worked', async () => {
      const bytes = randomBytes(64 * 1024);
      const sha = fx.fake.addMedia('7001', bytes, 'image/jpeg', { metadataFailures: 1, downloadFailures: 1 });
      assert.equal(
        await notify(corpus.inbound({ phone: '14155550602' }, 'wamid.retry-1', corpus.content.image('7001', sha, 'Third time'))),
        200,
      );
      const pending = await waitFor(async () => eventOf('+14155550602', 'wamid.retry-1'), 10_000, 'the event, before the file');
      assert.equal(pending.attachment.mediaStatus, 'Pending', 'the timeline does not wait for the file');
      assert.equal(pending.body, 'Third time');
      const payload = await webhookOf('wamid.retry-1', 20_000);
      assert.equal(payload.messageType, 'Image');
      assert.equal(payload.errorCode, null);
      assert.equal(payload.size, bytes.length);
      assert.deepEqual(await mediaBytes(payload.mediaUrl), bytes);
      const { info, downloads } = fx.fake.mediaRequests('7001');
      assert.equal(info.length, 3, 'a 500 describing it, then a 500 downloading it, then the file');
      assert.equal(downloads.length, 2);
      const stored = await eventOf('+14155550602', 'wamid.retry-1');
      assert.equal(stored.attachment.mediaStatus, 'Stored');
      assert.equal(stored.attachment.mediaUrl, payload.mediaUrl);
      assert.equal(stored.attachment.size, bytes.length);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      assert.equal(webhooksOf('wamid.retry-1').length, 1);
    });

    it('retries a file whose bytes do not match its sha256, then sends the webhook without it and with the error after the last attempt', async () => {
      const bytes = randomBytes(10_000);
      fx.fake.addMedia('7002', bytes, 'video/mp4', { sha256: createHash('sha256').update('something else').digest('hex') });
      assert.equal(await notify(corpus.inbound({ phone: '14155550603' }, 'wamid.hash-1', corpus.content.video('7002', 'ignored'))), 200);
      const payload = await webhookOf('wamid.hash-1', 30_000);
      assert.equal(payload.messageType, 'Video');
      assert.equal(payload.mediaUrl, null);
      assert.equal(payload.errorCode, 'WhatsApp:MediaHashMismatch');
      assert.match(payload.errorReason, /SHA-256/);
      assert.equal(fx.fake.mediaRequests('7002').downloads.length, 3, 'WHATSAPP_MEDIA_DOWNLOAD_ATTEMPTS = 3');
      const event = await eventOf('+14155550603', 'wamid.hash-1');
      assert.equal(event.attachment.mediaStatus, 'Failed');
      assert.equal(event.attachment.errorCode, 'WhatsApp:MediaHashMismatch');
      assert.equal(event.attachment.mediaUrl, null);
      await new Promise((resolve) => setTimeout(resolve, 1200));
      assert.equal(webhooksOf('wamid.hash-1').length, 1);
    });

    it('gives up at once on a file the Graph API does not know (a permanent error), webhook with the error', async () => {
      assert.equal(
        await notify(corpus.inbound({ phone: '14155550604' }, 'wamid.gone-1', corpus.content.sticker('7003-unknown', 'x'))),
        200,
      );
      const payload = await webhookOf('wamid.gone-1');
      assert.equal(payload.messageType, 'Sticker');
      assert.equal(payload.errorCode, 'WhatsApp:MediaDownloadFailed');
      assert.equal(fx.fake.mediaRequests('7003-unknown').info.length, 1);
    });

    it('reads pricing into isBillable, moves statuses of messages addressed by BSUID, and keeps the last known billing', async () => {
      assert.equal(await notify(corpus.inbound({ phone: '14155550605' }, 'wamid.window-1', corpus.content.text('hi'))), 200);
      await webhookOf('wamid.window-1');
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: '14155550605',
        text: 'Hello',
      });
      assert.equal(sent.status, 200, sent.text);
      const request = await waitFor(async () => fx.fake.sendsTo('14155550605')[0], 10_000, 'the send');
      const wamid = (request.answer?.body as { messages: Array<{ id: string }> }).messages[0].id;
      await waitFor(async () => webhooksOf(wamid).find((p) => p.status === 'Sent'), 10_000, 'Sent');
      // Service conversations are free: billable false.
      const pricingFree = { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' };
      assert.equal(
        await notify(
          corpus.status(wamid, 'delivered', {
            recipientId: '14155550605',
            pricing: pricingFree,
            contact: { phone: '14155550605', userId: 'US.77' },
          }),
        ),
        200,
      );
      const delivered = await waitFor(async () => webhooksOf(wamid).find((p) => p.status === 'Delivered'), 10_000, 'Delivered');
      assert.equal(delivered.isBillable, false);
      // A later status without pricing keeps what the last one said.
      assert.equal(await notify(corpus.status(wamid, 'read', { recipientId: '14155550605' })), 200);
      const read = await waitFor(async () => webhooksOf(wamid).find((p) => p.status === 'Read'), 10_000, 'Read');
      assert.equal(read.isBillable, false);

      // A message known only by its provider id and a status naming only the BSUID (a message sent to a BSUID).
      const sent2 = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: '14155550605',
        text: 'Promo',
      });
      assert.equal(sent2.status, 200);
      const request2 = await waitFor(async () => fx.fake.sendsTo('14155550605')[1], 10_000, 'the second send');
      const wamid2 = (request2.answer?.body as { messages: Array<{ id: string }> }).messages[0].id;
      await waitFor(async () => webhooksOf(wamid2).find((p) => p.status === 'Sent'), 10_000, 'Sent');
      const charged = { pricing_model: 'PMP', category: 'marketing', type: 'regular' };
      assert.equal(await notify(corpus.status(wamid2, 'delivered', { recipientUserId: 'US.77', pricing: charged })), 200);
      const delivered2 = await waitFor(async () => webhooksOf(wamid2).find((p) => p.status === 'Delivered'), 10_000, 'Delivered by BSUID');
      assert.equal(delivered2.isBillable, true);
      const moved = (await timeline('+14155550605')).items.find((e) => e.eventId === sent2.body.conversationEventId)!;
      assert.equal(moved.status, 'Delivered');
    });
  },
);

let worker: ChildProcess | undefined;

describeWithApp(
  'An inbound file survives a worker killed during its download',
  {
    peers: {
      fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }),
      receiver: () => WebhookReceiver.start(),
    },
    // This process takes Meta's notifications and reads; the worker processes run the jobs.
    env: ({ fake }) => ({
      APP_ROLE: 'api',
      WHATSAPP_GRAPH_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      QUEUE_LOCK_DURATION_MS: '2000',
    }),
    workspaces: 1,
    beforeClose: () => worker?.kill('SIGKILL'),
  },
  (fx) => {
    let channel: { id: string };

    const startWorker = () =>
      spawn(process.execPath, ['dist/src/main.js'], {
        env: { ...process.env, APP_ROLE: 'worker', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'warn' },
        stdio: 'ignore',
      });

    before(async () => {
      channel = await createCloudChannel(fx.t, fx.a.workspaceId, fx.fake, {
        phoneNumberId: '1',
        phoneNumber: '+14155550889',
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        webhookUrl: fx.receiver.url('/wa'),
      });
    });

    it('downloads it again in another worker, and the message arrives once', async () => {
      // 256 KB sent in 16 KB chunks every 150 ms: a download of about 2.4 s to kill the worker in.
      const bytes = randomBytes(256 * 1024);
      const sha = fx.fake.addMedia('8001', bytes, 'audio/ogg', { chunkBytes: 16 * 1024, chunkDelayMs: 150 });
      worker = startWorker();
      const notification = corpus.inbound({ phone: '14155550701', name: 'Kim' }, 'wamid.kill-1', corpus.content.audio('8001', sha, true));
      assert.equal(await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`, APP_SECRET, notification), 200);
      await waitFor(async () => fx.fake.mediaRequests('8001').downloads.length === 1, 30_000, 'the worker to start the download');
      await new Promise((resolve) => setTimeout(resolve, 500));
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker!.once('exit', resolve));
      assert.equal(fx.receiver.at('/wa').length, 0, 'no webhook before the file');
      worker = startWorker();
      const received = await waitFor(async () => fx.receiver.at('/wa')[0], 60_000, 'the webhook after the restart');
      const payload = verifySignature(received, fx.a.webhookSecret) as Payload;
      assert.equal(payload.messageId, 'wamid.kill-1');
      assert.equal(payload.messageType, 'Audio');
      const response = await fetch(`${fx.t.baseUrl}${new URL(payload.mediaUrl).pathname}`);
      assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
      assert.ok(fx.fake.mediaRequests('8001').downloads.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.equal(fx.receiver.at('/wa').length, 1, 'the message arrives once');
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+14155550701' })
      ).body.conversation;
      const page = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      assert.equal(page.body.totalCount, 1);
      assert.equal(page.body.items[0].attachment.mediaStatus, 'Stored');
    });
  },
);

const wakeWorkers: WorkerProcess[] = [];

describeWithApp(
  'A worker of its own wakes for a notification the API took, over Redis',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { APP_ROLE: 'api', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' },
    workspaces: 1,
    beforeClose: () => stopWorkers(wakeWorkers),
  },
  (fx) => {
    it('records it within seconds while the worker would look by itself only every 10 minutes', async () => {
      const channel = await createCloudChannel(fx.t, fx.a.workspaceId, null, {
        phoneNumberId: '3',
        phoneNumber: '+14155550887',
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        webhookUrl: fx.receiver.url('/wa'),
      });
      const notifyText = (id: string) =>
        FakeCloudApi.notify(
          `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`,
          APP_SECRET,
          corpus.inbound({ phone: '14155550702', name: 'Ada' }, id, corpus.content.text('hello')),
        );
      const webhookOf = (id: string, timeoutMs: number) =>
        waitFor(
          async () => fx.receiver.at('/wa').find((r) => (verifySignature(r, fx.a.webhookSecret) as Payload).messageId === id),
          timeoutMs,
          `the webhook of ${id}`,
        );
      wakeWorkers.push(startWorkerProcess({ WHATSAPP_INTAKE_IDLE_POLL_MS: '600000', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'warn' }));
      // The first is taken by the worker's first look or by a wake, whichever comes first after it boots.
      assert.equal(await notifyText('wamid.wake-1'), 200);
      await webhookOf('wamid.wake-1', 60_000);
      // Now its lane has looked again, found nothing, and waits: only the API's announcement over Redis can wake it in time.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const sentAt = performance.now();
      assert.equal(await notifyText('wamid.wake-2'), 200);
      await webhookOf('wamid.wake-2', 5_000);
      console.log(`notification → webhook through a worker of its own: ${Math.round(performance.now() - sentAt)} ms`);
    });
  },
);

describeWithApp(
  'Sandbox inbound injection takes every inbound type',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' },
  },
  (fx) => {
    let channel: { id: string };
    const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

    const inject = (body: Record<string, unknown>) => fx.t.admin.post(`/admin/v1/channels/${channel.id}/sandbox/inbound`, body);
    const webhookOf = (messageId: string) =>
      waitFor(
        async () =>
          fx.receiver
            .at('/sbx')
            .map((r) => verifySignature(r, fx.a.webhookSecret) as Payload)
            .find((p) => p.messageId === messageId),
        10_000,
        `the webhook of ${messageId}`,
      );

    before(async () => {
      channel = (
        await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
          name: 'Sandbox',
          type: 2,
          phoneNumber: '+14155550890',
          webhookUrl: fx.receiver.url('/sbx'),
          whatsApp: { provider: 'sandbox' },
        })
      ).body;
    });

    it('injects files from the workspace’s uploads, locations, shared contacts, reactions and unsupported messages, each as Meta would deliver it', async () => {
      const png = await uploadFile(fx.t.baseUrl, '/v1/support/upload', fx.a.token, 'file', {
        bytes: PNG,
        name: 'shot.png',
        type: 'image/png',
      });
      assert.equal(png.status, 200, JSON.stringify(png.body));
      const pdf = await uploadFile(fx.t.baseUrl, '/v1/support/upload', fx.a.token, 'file', {
        bytes: minimalPdf(),
        name: 'terms.pdf',
        type: 'application/pdf',
      });
      assert.equal(pdf.status, 200);
      const sender = { fromNumber: '14155550801', fromUserId: 'SA.4455667788', username: 'noura', profileName: 'Noura' };

      const image = await inject({ ...sender, type: 'image', mediaId: png.body.id, caption: 'Look' });
      assert.equal(image.status, 202, image.text);
      const imagePayload = await webhookOf(image.body.messageId);
      assert.deepEqual(
        [imagePayload.messageType, imagePayload.body, imagePayload.mediaUrl, imagePayload.mimeType, imagePayload.size],
        ['Image', 'Look', png.body.url, 'image/png', png.body.size],
      );
      assert.deepEqual(
        [imagePayload.whatsAppUserId, imagePayload.whatsAppUsername, imagePayload.profileName],
        ['SA.4455667788', 'noura', 'Noura'],
      );

      const doc = await inject({ ...sender, type: 'document', mediaId: pdf.body.id, fileName: 'Terms 2026.pdf' });
      const docPayload = await webhookOf(doc.body.messageId);
      assert.deepEqual(
        [docPayload.messageType, docPayload.body, docPayload.fileName, docPayload.mediaUrl],
        ['Document', 'Terms 2026.pdf', 'Terms 2026.pdf', pdf.body.url],
      );

      const voice = await inject({ ...sender, type: 'audio', mediaId: png.body.id, voice: true });
      assert.equal((await webhookOf(voice.body.messageId)).messageType, 'Audio');

      const location = await inject({ ...sender, type: 'location', location: { latitude: 21.4225, longitude: 39.8262, name: 'Office' } });
      const locationPayload = await webhookOf(location.body.messageId);
      assert.deepEqual([locationPayload.messageType, locationPayload.latitude, locationPayload.longitude], ['Location', 21.4225, 39.8262]);

      const contacts = await inject({
        ...sender,
        type: 'contacts',
        contacts: [{ name: { formattedName: 'Omar Ali', firstName: 'Omar' }, phones: [{ phone: '+966501234567', type: 'CELL' }] }],
      });
      const contactsPayload = await webhookOf(contacts.body.messageId);
      assert.equal(contactsPayload.messageType, 'Contact');
      assert.equal(contactsPayload.contacts[0].name.formattedName, 'Omar Ali');
      assert.deepEqual(contactsPayload.contacts[0].phones, [{ phone: '+966501234567', waId: null, type: 'CELL' }]);

      // A reaction names the message by its provider id or by our event id.
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+14155550801' })
      ).body.conversation;
      const timeline = async () =>
        (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline?MaxResultCount=100`)).body.items as Payload[];
      const imageEvent = (await timeline()).find((e) => e.sourceId === image.body.messageId)!;
      assert.equal(imageEvent.attachment.mediaStatus, 'Stored');
      assert.equal(imageEvent.attachment.mediaUrl, png.body.url);
      const byEventId = await inject({ ...sender, type: 'reaction', reaction: { messageId: imageEvent.eventId, emoji: '❤️' } });
      const byProviderId = await inject({ ...sender, type: 'reaction', reaction: { messageId: image.body.messageId, emoji: '' } });
      const [r1, r2] = [await webhookOf(byEventId.body.messageId), await webhookOf(byProviderId.body.messageId)];
      assert.deepEqual([r1.messageType, r1.body, r1.reactedMessageId], ['Reaction', '❤️', imageEvent.eventId]);
      assert.deepEqual([r2.messageType, r2.body, r2.reactedMessageId], ['Reaction', '', imageEvent.eventId]);

      const other = await inject({ ...sender, type: 'unsupported', text: 'a poll' });
      assert.equal((await webhookOf(other.body.messageId)).messageType, 'Unsupported');

      const events = await timeline();
      assert.deepEqual(events.find((e) => e.sourceId === location.body.messageId)!.location, {
        latitude: 21.4225,
        longitude: 39.8262,
        name: 'Office',
        address: null,
      });
      assert.equal((await fx.a.api.get(`/v1/contacts/${conversation.contactId}`)).body.name, 'Noura');
    });

    it('refuses another workspace’s upload (404), a message without what its type needs (400), and a sender without any id (400)', async () => {
      const theirs = await uploadFile(fx.t.baseUrl, '/v1/support/upload', fx.b.token, 'file', {
        bytes: PNG,
        name: 'b.png',
        type: 'image/png',
      });
      assert.equal(theirs.status, 200);
      const foreign = await inject({ fromNumber: '14155550802', type: 'image', mediaId: theirs.body.id });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, 'Media:NotFound');
      const noFile = await inject({ fromNumber: '14155550802', type: 'video' });
      assert.equal(noFile.status, 400);
      assert.equal(noFile.body.error.code, 'WhatsApp:InvalidSandboxMessage');
      assert.deepEqual(noFile.body.error.validationErrors[0].members, ['mediaId']);
      const nobody = await inject({ type: 'text', text: 'hi' });
      assert.equal(nobody.status, 400);
      assert.deepEqual(nobody.body.error.validationErrors[0].members, ['fromNumber', 'fromUserId']);
      const badType = await inject({ fromNumber: '14155550802', type: 'hologram' });
      assert.equal(badType.status, 400);
      const badUserId = await inject({ fromUserId: 'not-a-bsuid', type: 'text', text: 'x' });
      assert.equal(badUserId.status, 400);
    });
  },
);
