import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Client } from 'pg';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { waitFor } from '../support/fixtures.js';
import { startWorker, stopWorkers, type WorkerProcess } from '../support/worker-process.js';

const TOKEN = 'EAAG-campaign-crash-token';
const RECIPIENTS = 300;

type Payload = Record<string, any>;

const NEWS = {
  name: 'crash_news',
  language: 'en_US',
  category: 'MARKETING',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Our news of the week.' }],
};

const workers: WorkerProcess[] = [];

describeWithApp(
  'Campaigns: a worker killed mid-campaign sends no recipient twice (API.md §13)',
  {
    peers: {
      fake: async () => {
        const fake = await FakeCloudApi.start();
        fake.acceptedTokens = [TOKEN];
        return fake;
      },
    },
    // The app under test serves the API only; the campaign runs in worker processes started (and killed) here.
    // A killed worker's jobs are taken up again once their Bull lock (3 s here) lapses.
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      APP_ROLE: 'api',
      QUEUE_LOCK_DURATION_MS: '3000',
    }),
    workspaces: 1,
    beforeClose: () => stopWorkers(workers),
  },
  (fx) => {
    let channelId: string;

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud crash',
        type: 2,
        phoneNumber: '+14155550999',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: '301000000000001',
          wabaId: '555',
          accessToken: TOKEN,
          appSecret: 's',
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      channelId = created.body.id;
      fx.fake.templatePages = [{ data: [NEWS] }];
      assert.equal((await fx.t.admin.post(`/admin/v1/channels/${channelId}/templates/sync`)).status, 200);
    });

    it('kills the worker (SIGKILL) while it sends; another worker finishes: every recipient has exactly one send, and each reached the provider', async () => {
      const digits = Array.from({ length: RECIPIENTS }, (_, i) => `1415777${String(1000 + i).padStart(4, '0')}`);
      const vCards = digits.map((d, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Crash ${i}\r\nTEL:+${d}\r\nEND:VCARD`);
      const imported = await fx.a.api.post('/v1/contacts/import/vcards', { vCards });
      assert.equal(imported.body.createdCount, RECIPIENTS, imported.text);
      const campaign = await fx.a.api.post('/v1/campaigns', {
        name: 'Crash',
        channelId,
        kind: 'WhatsAppTemplate',
        template: { templateName: NEWS.name, language: NEWS.language },
        audience: { search: { filter: 'Crash' } },
      });
      assert.equal(campaign.status, 200, campaign.text);
      const id = campaign.body.id as string;
      const countsOf = async () => ((await fx.a.api.get(`/v1/campaigns/${id}`)).body as Payload).counts as Payload;

      const first = startWorker();
      workers.push(first);
      await waitFor(async () => /Worker started/.test(first.output()), 60_000, 'the first worker');
      assert.equal((await fx.a.api.post(`/v1/campaigns/${id}/start`, {})).status, 200);
      await waitFor(async () => (await countsOf()).pending < RECIPIENTS - 20, 60_000, 'the first worker to send');
      first.child.kill('SIGKILL');
      await first.exit;
      const atKill = await countsOf();
      assert.ok(atKill.pending > 0, `recipients left when the worker died: ${JSON.stringify(atKill)}`);

      const second = startWorker();
      workers.push(second);
      const done = await waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/campaigns/${id}`);
          return res.body.status === 'Completed' ? (res.body as Payload) : undefined;
        },
        150_000,
        'the second worker to complete the campaign (after the dead one’s claims lapse)',
      );
      assert.equal(done.counts.total, RECIPIENTS);
      assert.equal(done.counts.pending, 0);

      // The campaign's guarantee: one accepted send (conversation event) per recipient, whatever died when.
      const db = new Client({ connectionString: fx.t.databaseUrl });
      await db.connect();
      try {
        const { rows } = await db.query<{ sends: number; contacts: number; most: number }>(
          `SELECT count(*)::int AS sends, count(DISTINCT contact_id)::int AS contacts,
                  coalesce(max(n), 0)::int AS most
             FROM (SELECT contact_id, count(*) OVER (PARTITION BY contact_id) AS n FROM conversation_events
                    WHERE workspace_id = $1 AND direction = 2 AND attachment->>'templateName' = $2) e`,
          [fx.a.workspaceId, NEWS.name],
        );
        assert.deepEqual(rows[0], { sends: RECIPIENTS, contacts: RECIPIENTS, most: 1 }, 'one send per recipient');
      } finally {
        await db.end();
      }
      const linked = await fx.a.api.get(`/v1/campaigns/${id}/recipients?MaxResultCount=1000`);
      assert.equal(new Set((linked.body.items as Payload[]).map((r) => r.conversationEventId)).size, RECIPIENTS);
      // Every message reached the provider once, but for a send whose provider call was under way when the worker
      // died: the Cloud API has no idempotency key, so it ends Failed WhatsApp:SendInterrupted (having reached the
      // provider once or never) and is not sent again. The campaign completes only once every send has ended so.
      const interrupted = new Set(
        (linked.body.items as Payload[])
          .filter((r) => r.status === 'Failed' && r.errorCode === 'WhatsApp:SendInterrupted')
          .map((r) => String(r.phoneNumber).slice(1)),
      );
      await waitFor(
        async () => digits.every((d) => interrupted.has(d) || fx.fake.sendsTo(d).length >= 1),
        60_000,
        'every message not interrupted at the provider',
      );
      const twice = digits.filter((d) => fx.fake.sendsTo(d).length > 1).length;
      console.log(`# sends interrupted by the kill: ${interrupted.size}; provider calls made twice: ${twice} of ${RECIPIENTS}`);
      assert.equal(twice, 0, 'no message reached the provider twice');
      assert.ok(interrupted.size <= 32, `at most the provider calls under way at the kill were interrupted (${interrupted.size})`);
    });
  },
);
