import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Body, Controller, HttpCode, Module, Post } from '@nestjs/common';
import { IsInt, IsOptional, IsString } from 'class-validator';
import { DataSource } from 'typeorm';
import { CurrentWorkspace } from '../../src/auth/principal.js';
import { ValidationError } from '../../src/common/errors/domain-error.js';
import { IdempotencyService, requestFingerprint } from '../../src/common/idempotency/idempotency.service.js';
import { Idempotent } from '../../src/common/idempotency/idempotent.decorator.js';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeTwilio } from '../support/fake-twilio.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const CLOUD_TOKEN = 'EAAG-idempotency-token';
const TWILIO_TOKEN = 'twilio-auth-token-idempotency-0123';
const TWILIO_SID = 'AC0123456789abcdef0123456789abcdef';
const ORDER = approvedTemplate('order_ready', 'UTILITY', 'Your order is ready.');

class ProbeSendDto {
  @IsString() to: string;
  @IsOptional() @IsInt() delayMs?: number;
  @IsOptional() @IsString() fail?: string;
}

const performed: Array<{ workspaceId: string; to: string }> = [];

/** Stands in for a send operation: counts how often its body really runs. */
@Controller('test-probe')
class ProbeSendController {
  @Post('send')
  @HttpCode(200)
  @Idempotent()
  async send(@CurrentWorkspace() workspaceId: string, @Body() body: ProbeSendDto) {
    if (body.delayMs) await new Promise((resolve) => setTimeout(resolve, body.delayMs));
    if (body.fail) throw new ValidationError('Probe:Failed', body.fail);
    performed.push({ workspaceId, to: body.to });
    return { sent: performed.length, to: body.to };
  }
}

@Module({ controllers: [ProbeSendController] })
class ProbeModule {}

describeWithApp(
  'Idempotency-Key (API.md §1)',
  {
    extraModules: [ProbeModule],
    peers: {
      cloud: () => FakeCloudApi.start({ acceptedTokens: [CLOUD_TOKEN] }),
      twilio: () => FakeTwilio.start(TWILIO_TOKEN),
      receiver: () => WebhookReceiver.start(),
    },
    env: async ({ cloud, twilio }) => {
      const port = await freePort();
      return {
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        WHATSAPP_GRAPH_URL: cloud.url,
        TWILIO_API_URL: twilio.url,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      };
    },
  },
  (fx) => {
    it('acts once for the same key and body, and replays the first response', async () => {
      const first = await fx.a.api.post('/test-probe/send', { to: '1' }, { 'Idempotency-Key': 'key-1' });
      assert.equal(first.status, 200);
      const again = await fx.a.api.post('/test-probe/send', { to: '1' }, { 'Idempotency-Key': 'key-1' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.equal(performed.filter((p) => p.to === '1').length, 1);
    });

    it('answers 422 when the key comes back with another body', async () => {
      const res = await fx.a.api.post('/test-probe/send', { to: '2' }, { 'Idempotency-Key': 'key-1' });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, 'Idempotency:KeyReused');
      assert.equal(performed.filter((p) => p.to === '2').length, 0);
    });

    it('answers 409 while the first request with the key is still running', async () => {
      const slow = fx.a.api.post('/test-probe/send', { to: '3', delayMs: 400 }, { 'Idempotency-Key': 'key-slow' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const concurrent = await fx.a.api.post('/test-probe/send', { to: '3', delayMs: 400 }, { 'Idempotency-Key': 'key-slow' });
      assert.equal(concurrent.status, 409);
      assert.equal(concurrent.body.error.code, 'Idempotency:InFlight');
      assert.equal((await slow).status, 200);
      assert.equal(performed.filter((p) => p.to === '3').length, 1);
    });

    it('scopes keys to the workspace', async () => {
      const res = await fx.b.api.post('/test-probe/send', { to: '1' }, { 'Idempotency-Key': 'key-1' });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('idempotent-replayed'), null);
      assert.equal(performed.filter((p) => p.to === '1' && p.workspaceId === fx.b.workspaceId).length, 1);
    });

    it('frees the key when the request fails, so a retry may act', async () => {
      const failed = await fx.a.api.post('/test-probe/send', { to: '4', fail: 'not now' }, { 'Idempotency-Key': 'key-4' });
      assert.equal(failed.status, 400);
      const retried = await fx.a.api.post('/test-probe/send', { to: '4', fail: 'still not' }, { 'Idempotency-Key': 'key-4' });
      assert.equal(retried.status, 400, 'a different body is accepted after a failure');
      const ok = await fx.a.api.post('/test-probe/send', { to: '4' }, { 'Idempotency-Key': 'key-4' });
      assert.equal(ok.status, 200);
    });

    it('refuses a key longer than 255 characters', async () => {
      const res = await fx.a.api.post('/test-probe/send', { to: '5' }, { 'Idempotency-Key': 'k'.repeat(256) });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'Idempotency:InvalidKey');
    });

    it('acts every time without a key', async () => {
      const before = performed.length;
      await fx.a.api.post('/test-probe/send', { to: '6' });
      await fx.a.api.post('/test-probe/send', { to: '6' });
      assert.equal(performed.length, before + 2);
    });

    describe('a process that dies around the write (kill -9)', () => {
      let cloud: { id: string };
      let voice: { id: string };
      const db = () => fx.t.app.get(DataSource);
      const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

      before(async () => {
        cloud = await createCloudChannel(fx.t, fx.a.workspaceId, fx.cloud, {
          phoneNumberId: '1100220033',
          accessToken: CLOUD_TOKEN,
          templates: [ORDER],
        });
        voice = await createChannel(fx.t, fx.a.workspaceId, {
          type: 1,
          whatsApp: undefined,
          voice: { provider: 'twilio', accountSid: TWILIO_SID, authToken: TWILIO_TOKEN, fromNumber: '+14155550100' },
        });
      });

      /**
       * Runs `request` as a process that is killed right after its handler returned (the request's
       * change committed: the message or call WILL go out) would: whatever the idempotency interceptor
       * does after the handler never happens. Then lets the 60 s after which an in-flight key counts
       * as abandoned pass, by moving the record's creation back.
       */
      const diesAfterCommit = async <T>(key: string, request: () => Promise<T>): Promise<T> => {
        const service = fx.t.app.get(IdempotencyService);
        service.complete = () => Promise.resolve(); // the process is gone before it stores the response
        try {
          return await request();
        } finally {
          delete (service as Partial<IdempotencyService>).complete;
          await db().query(
            `UPDATE idempotency_records SET created_at = created_at - interval '2 minutes' WHERE workspace_id = $1 AND key = $2`,
            [fx.a.workspaceId, key],
          );
        }
      };

      /** The in-flight record a process leaves when it dies after its claim and before its change committed, 2 minutes ago. */
      const abandonedClaim = (key: string, route: string, body: unknown) =>
        db().query(
          `INSERT INTO idempotency_records (workspace_id, key, request_hash, response_status, response_body, created_at, expires_at)
           VALUES ($1, $2, $3, NULL, NULL, now() - interval '2 minutes', now() + interval '1 day')`,
          [fx.a.workspaceId, key, requestFingerprint('POST', route, body)],
        );

      const sendTemplate = (toNumber: string, key: string) =>
        fx.a.api.post(
          '/v1/whatsapp/service-account/sendTemplate',
          { channelId: cloud.id, templateName: ORDER.name, language: ORDER.language, toNumber },
          { 'Idempotency-Key': key },
        );

      /** The retry of a committed send replays its answer and sends nothing, on both of the send's write paths. */
      const sendsOnceAcrossTheCrash = async (toNumber: string, key: string, earlierSends: number) => {
        const first = await diesAfterCommit(key, () => sendTemplate(toNumber, key));
        assert.equal(first.status, 200, first.text);
        await waitFor(async () => fx.cloud.sendsTo(toNumber).length > earlierSends, 10_000, 'the send');
        const retried = await sendTemplate(toNumber, key);
        assert.equal(retried.status, 200, retried.text);
        assert.equal(retried.body.conversationEventId, first.body.conversationEventId, 'the retry answers with the message sent');
        assert.deepEqual(retried.body, first.body);
        assert.equal(retried.headers.get('idempotent-replayed'), 'true');
        await sleep(1000);
        assert.equal(fx.cloud.sendsTo(toNumber).length, earlierSends + 1, 'the provider got the message once');
        const [{ count }] = await db().query<Array<{ count: number }>>(
          `SELECT count(*)::int AS count FROM conversation_events WHERE workspace_id = $1 AND contact_id = $2`,
          [fx.a.workspaceId, first.body.contactId],
        );
        assert.equal(count, earlierSends + 1, 'one message recorded');
      };

      it('Send Template to a new contact (its transaction): a retry after the crash replays, the message goes once', async () => {
        await sendsOnceAcrossTheCrash('966500001111', 'crash-template-new', 0);
      });

      it('Send Template into the open conversation (its one statement): a retry after the crash replays, the message goes once', async () => {
        await sendsOnceAcrossTheCrash('966500001111', 'crash-template-open', 1);
      });

      /** A Create Outbound IVR request under `key` to `destination` (the fake Twilio will not answer it), and the calls placed to it. */
      const ivrCall = (destination: string, key: string) => {
        const body = {
          channelId: voice.id,
          destinationNumber: destination,
          audioFileUrl: 'https://media.example.com/question.wav',
          options: [{ digit: '1', description: 'Confirm' }],
          webhookUrl: fx.receiver.url(`/ivr/${key}`),
        };
        fx.twilio.expectCall({ answer: 'no-answer' });
        return {
          create: () => fx.a.api.post('/v1/outbound-ivr', body, { 'Idempotency-Key': key }),
          placed: () => fx.twilio.requests.filter((r) => r.path.endsWith('/Calls.json') && r.form.get('To') === destination),
        };
      };

      it('Create Outbound IVR: a retry after the crash replays the request, the call is placed once', async () => {
        const destination = '+966501112222';
        const { placed, create } = ivrCall(destination, 'crash-ivr');
        const first = await diesAfterCommit('crash-ivr', create);
        assert.equal(first.status, 200, first.text);
        await waitFor(async () => placed().length > 0, 10_000, 'the call');
        const retried = await create();
        assert.equal(retried.status, 200, retried.text);
        assert.equal(retried.body.id, first.body.id, 'the retry answers with the call placed');
        assert.deepEqual(retried.body, first.body);
        assert.equal(retried.headers.get('idempotent-replayed'), 'true');
        await sleep(1000);
        assert.equal(placed().length, 1, 'the call was placed once');
        const list = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100');
        assert.equal(
          (list.body.items as Array<{ destinationNumber: string }>).filter((r) => r.destinationNumber === destination).length,
          1,
        );
      });

      /**
       * Runs two requests under `key` whose runs stall right after claiming it, until resumed: the
       * first, then, once its claim is made to look 2 minutes old, a retry that claims the key again.
       */
      const stalledPair = async (key: string, request: () => Promise<Awaited<ReturnType<typeof fx.a.api.post>>>) => {
        const service = fx.t.app.get(IdempotencyService);
        const claim = service.claim.bind(service);
        const stalls: Array<() => void> = [];
        service.claim = async (...args) => {
          const claimed = await claim(...args);
          if (args[1] === key && stalls.length < 2) await new Promise<void>((resolve) => stalls.push(resolve));
          return claimed;
        };
        const restore = () => delete (service as Partial<IdempotencyService>).claim;
        const first = request();
        await waitFor(async () => stalls.length === 1, 10_000, 'the first request to claim its key');
        await db().query(
          `UPDATE idempotency_records SET created_at = created_at - interval '2 minutes' WHERE workspace_id = $1 AND key = $2`,
          [fx.a.workspaceId, key],
        );
        const retry = request();
        await waitFor(async () => stalls.length === 2, 10_000, 'the retry to claim the key again');
        restore();
        return { first, retry, resumeFirst: stalls[0], resumeRetry: stalls[1] };
      };

      it('a request still running when its key is claimed again after 60 s does not commit: it answers 409, the call is placed once', async () => {
        const destination = '+966501113333';
        const { placed, create } = ivrCall(destination, 'slow-ivr');
        const { first, retry, resumeFirst, resumeRetry } = await stalledPair('slow-ivr', create);
        // The first writes while the retry's claim is in flight: it must not store into that claim, nor commit its call.
        resumeFirst();
        const late = await first.finally(resumeRetry);
        assert.equal(late.status, 409, late.text);
        assert.equal((late.body as { error: { code: string } }).error.code, 'Idempotency:InFlight');
        const retried = (await retry) as { status: number; text: string; body: { id: string } };
        assert.equal(retried.status, 200, retried.text);
        await waitFor(async () => placed().length > 0, 10_000, 'the call');
        await sleep(1000);
        assert.equal(placed().length, 1, 'the call was placed once');
        const list = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100');
        const requests = (list.body.items as Array<{ id: string; destinationNumber: string }>).filter(
          (r) => r.destinationNumber === destination,
        );
        assert.deepEqual(
          requests.map((r) => r.id),
          [retried.body.id],
          'only the retry’s request was recorded',
        );
        const replayed = await create();
        assert.deepEqual(replayed.body, retried.body, 'the key answers with the retry’s response');
      });

      it('a claim abandoned before its change committed is run again after 60 s, and still answers 409 before', async () => {
        const toNumber = '966500003333';
        const body = { channelId: cloud.id, templateName: ORDER.name, language: ORDER.language, toNumber };
        await abandonedClaim('abandoned-send', '/v1/whatsapp/service-account/sendTemplate', body);
        const sent = await sendTemplate(toNumber, 'abandoned-send');
        assert.equal(sent.status, 200, sent.text);
        assert.equal(sent.headers.get('idempotent-replayed'), null);
        await waitFor(async () => fx.cloud.sendsTo(toNumber).length > 0, 10_000, 'the send');
        const replayed = await sendTemplate(toNumber, 'abandoned-send');
        assert.deepEqual(replayed.body, sent.body);
        assert.equal(replayed.headers.get('idempotent-replayed'), 'true');

        await abandonedClaim('abandoned-probe', '/test-probe/send', { to: '7' });
        await db().query(`UPDATE idempotency_records SET created_at = now() WHERE workspace_id = $1 AND key = 'abandoned-probe'`, [
          fx.a.workspaceId,
        ]);
        const early = await fx.a.api.post('/test-probe/send', { to: '7' }, { 'Idempotency-Key': 'abandoned-probe' });
        assert.equal(early.status, 409, 'a claim younger than 60 s may still be running');
        await db().query(
          `UPDATE idempotency_records SET created_at = now() - interval '2 minutes' WHERE workspace_id = $1 AND key = 'abandoned-probe'`,
          [fx.a.workspaceId],
        );
        const late = await fx.a.api.post('/test-probe/send', { to: '7' }, { 'Idempotency-Key': 'abandoned-probe' });
        assert.equal(late.status, 200, late.text);
        assert.equal(performed.filter((p) => p.to === '7').length, 1);
      });
    });
  },
);
