import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ContactIdentity } from '../../src/contacts/contact-identity.service.js';
import { InboundService } from '../../src/whatsapp/inbound/inbound.service.js';
import { approvedTemplate } from '../support/cloud-channel.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';
import { inTransaction } from '../../src/database/transactions.js';

const TEMPLATE = { ...approvedTemplate('hello', 'UTILITY', 'Hello {{1}}'), language: 'en' };
/** Transactions left open after creating a contact, as the worker's round of inbound messages leaves its own while it records the rest. */
const HELD = 8;
const SENDS = 60;
const INBOUND = 20;
/** Every request and inbound message must be answered within this while those transactions are open. */
const BOUND_MS = 8000;

type DomainEvent = { type: string; data: Record<string, any> };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithApp(
  'Contacts created at once with an endpoint taking every event: no transaction waits for another one to commit',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000' },
    workspaces: 1,
  },
  (fx) => {
    it('answers sends to new numbers and records inbound messages of new senders while other contact-creating transactions stay open, and delivers every event', async () => {
      const endpoint = await fx.a.api.post('/v1/webhook-endpoints', { url: fx.receiver.url('/events') });
      assert.equal(endpoint.status, 200, endpoint.text);
      const channel = await createChannel(fx.t, fx.a.workspaceId, { phoneNumber: '+14155550770' });
      assert.equal((await fx.t.admin.post(`/admin/v1/channels/${channel.id}/templates`, TEMPLATE)).status, 200);
      const identities = fx.t.app.get(ContactIdentity);
      const inbound = fx.t.app.get(InboundService);

      // Transactions that created a contact (with its contact.created event) and are not done yet.
      const heldNumbers = Array.from({ length: HELD }, (_, i) => `+1415555${String(1000 + i)}`);
      let opened = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const held = heldNumbers.map((phone) =>
        inTransaction(async () => {
          await identities.idByPhone({ workspaceId: fx.a.workspaceId, serviceAccountId: null }, phone);
          opened++;
          await released;
        }),
      );
      try {
        await waitFor(async () => opened === HELD, 10_000, 'the held transactions to create their contacts');

        const sendNumbers = Array.from({ length: SENDS }, (_, i) => `+1415556${String(1000 + i)}`);
        const inboundNumbers = Array.from({ length: INBOUND }, (_, i) => `+1415557${String(1000 + i)}`);
        const answeredAt = new Map<string, number>();
        const started = Date.now();
        const sends = sendNumbers.map((toNumber) =>
          fx.a.api
            .post('/v1/whatsapp/service-account/sendTemplate', {
              channelId: channel.id,
              templateName: TEMPLATE.name,
              language: TEMPLATE.language,
              toNumber,
              parameters: [{ type: 'Body', values: [{ type: 'text', text: 'there' }] }],
            })
            .finally(() => answeredAt.set(toNumber, Date.now())),
        );
        // Recorded as the worker records a claimed round: one transaction for the messages of a channel, two rounds at once.
        const rounds = [inboundNumbers.slice(0, INBOUND / 2), inboundNumbers.slice(INBOUND / 2)];
        const received = rounds.map((senders, round) =>
          inTransaction(() =>
            inbound.receiveMany(
              fx.a.workspaceId,
              channel.id,
              senders.map((fromNumber, i) => ({
                providerMessageId: `wamid.new-sender-${round}-${i}`,
                fromNumber,
                type: 'text' as const,
                text: 'hi',
                receivedAt: new Date().toISOString(),
              })),
            ),
          ).finally(() => senders.forEach((fromNumber) => answeredAt.set(fromNumber, Date.now()))),
        );
        const all = Promise.allSettled([...sends, ...received]);
        await Promise.race([all, sleep(BOUND_MS)]);
        const late = [...sendNumbers, ...inboundNumbers].filter((n) => !answeredAt.has(n));
        // Let anything still waiting finish before the assertions, so the app closes cleanly either way.
        release();
        const outcomes = await all;
        assert.deepEqual(late, [], `${late.length} of ${SENDS + INBOUND} still waiting after ${BOUND_MS} ms, behind the open transactions`);
        for (const outcome of outcomes) assert.equal(outcome.status, 'fulfilled', String((outcome as PromiseRejectedResult).reason));
        for (const outcome of outcomes.slice(0, SENDS)) {
          const res = (outcome as PromiseFulfilledResult<{ status: number; text: string }>).value;
          assert.equal(res.status, 200, res.text);
        }
        const slowest = Math.max(...answeredAt.values()) - started;
        assert.ok(slowest < BOUND_MS, `the slowest answer took ${slowest} ms`);
      } finally {
        release();
        await Promise.all(held);
      }

      // Every contact's contact.created and every new conversation's conversation.created reach the endpoint, once.
      const events = () => fx.receiver.at('/events').map((r) => verifySignature(r, endpoint.body.secret) as DomainEvent);
      const everyNumber = [
        ...heldNumbers,
        ...Array.from({ length: SENDS }, (_, i) => `+1415556${String(1000 + i)}`),
        ...Array.from({ length: INBOUND }, (_, i) => `+1415557${String(1000 + i)}`),
      ];
      const created = await waitFor(
        async () => {
          const phones = events()
            .filter((e) => e.type === 'contact.created')
            .map((e) => e.data.phoneNumber as string);
          return everyNumber.every((phone) => phones.includes(phone)) && phones;
        },
        30_000,
        'contact.created of every new contact',
      );
      assert.equal(created.length, everyNumber.length, 'each contact.created once');
      await waitFor(
        async () => events().filter((e) => e.type === 'conversation.created').length >= SENDS + INBOUND,
        30_000,
        'conversation.created of every new conversation',
      );
      // The contact count, kept by the counter's shards, is still exact.
      const listed = await fx.a.api.get('/v1/contacts?MaxResultCount=1');
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.body.totalCount, everyNumber.length);
    });
  },
);
