import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { approvedTemplate } from '../support/cloud-channel.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { waitFor } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { HttpClient, type HttpResponse } from '../support/http-client.js';
import { deleteRedisKeys } from '../support/redis-keys.js';
import { ADMIN_KEY, baseTestEnv } from '../support/test-app.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const MAIN = 'dist/src/main.js';
const CLOUD_TOKEN = 'EAAG-replicas-token';
const APP_SECRET = 'replicas-app-secret';
const TEMPLATE = approvedTemplate('replica_notice', 'UTILITY', 'Notice {{1}}');
const LOAD_MS = 24_000;
/** Each kind of request, one every this many ms (about 7 sends, 3 notifications and 2 calls a second). */
const EVERY_MS = { send: 150, inbound: 300, call: 500 };
/** When, from the start of the load, a worker and then an API are killed, and how long each stays down. */
const FAULTS = { workerKillAt: 6_000, apiKillAt: 12_000, downMs: 3_000 };
const DRAIN_MS = 90_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One process of the deployment, started from the production build; restartable on the same port. */
class Replica {
  child: ChildProcess | undefined;
  private log = '';
  private working = false;

  constructor(
    readonly name: string,
    private readonly env: Record<string, string>,
    readonly port: number,
  ) {}

  start(extra: Record<string, string> = {}): void {
    this.log += `\n--- ${this.name} started ---\n`;
    const child = spawn(process.execPath, [MAIN], {
      env: { ...process.env, ...this.env, PORT: String(this.port), ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Only the tail is kept: it is printed when something fails.
    this.working = false;
    const keep = (chunk: Buffer) => {
      const lines = chunk
        .toString()
        .split('\n')
        .filter((line) => !/"context":"(RouterExplorer|RoutesResolver|InstanceLoader)"/.test(line));
      this.log = (this.log + lines.join('\n')).slice(-20_000);
      if (/Processing \d+ job type/.test(chunk.toString())) this.working = true;
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    this.child = child;
  }

  output(): string {
    return this.log;
  }

  async ready(): Promise<void> {
    if (this.env.APP_ROLE === 'worker') {
      await waitFor(async () => this.working, 60_000, `${this.name} to take jobs`);
      return;
    }
    const url = `http://127.0.0.1:${this.port}/health/ready`;
    await waitFor(async () => (await fetch(url).catch(() => undefined))?.status === 200, 60_000, `${this.name} to be ready`);
  }

  /** `kill -9`: no shutdown hook runs, connections and locks are left as they were. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM', 15_000);
  }

  private async signal(signal: NodeJS.Signals, graceMs = 0): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    const timer = graceMs ? setTimeout(() => child.kill('SIGKILL'), graceMs) : undefined;
    await exited;
    clearTimeout(timer);
  }
}

interface ProxiedAnswer {
  backend: number;
  status: number;
  at: number;
  /** The proxy answered itself: the backend refused the connection or dropped it mid-request. */
  proxyError?: string;
  path: string;
  body?: string;
}

/**
 * A round-robin HTTP proxy in front of the API processes, as a load balancer without health checks
 * is: a request sent to an API that is down is answered 502 by the proxy (and recorded as such).
 */
class RoundRobinProxy {
  readonly answers: ProxiedAnswer[] = [];
  private next = 0;
  private server!: Server;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  url = '';

  constructor(private readonly ports: number[]) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const backend = this.next++ % this.ports.length;
      const record = (status: number, proxyError?: string, body?: string) =>
        this.answers.push({ backend, status, at: Date.now(), proxyError, path: req.url ?? '/', body });
      const upstream = httpRequest(
        { host: '127.0.0.1', port: this.ports[backend], method: req.method, path: req.url, headers: req.headers, agent: this.agent },
        (answer) => {
          const status = answer.statusCode ?? 0;
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('end', () => {
            if (settled) return;
            settled = true;
            const body = Buffer.concat(chunks);
            record(status, undefined, status >= 500 ? body.toString('utf8') : undefined);
            // Hop-by-hop headers are the proxy's own: the backend's `Keep-Alive: timeout=72` would
            // have the client reuse a connection this server has closed.
            const { connection: _c, 'keep-alive': _k, 'transfer-encoding': _t, ...headers } = answer.headers;
            res.writeHead(status, { ...headers, 'x-backend': String(backend) });
            res.end(body);
          });
          answer.on('error', (err) => fail(err));
        },
      );
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        record(502, (err as NodeJS.ErrnoException).code ?? err.message);
        res.writeHead(502, { 'content-type': 'application/json', 'x-backend': String(backend) });
        res.end(JSON.stringify({ statusCode: 502, message: 'Bad gateway', error: { code: 'Proxy:BadGateway' } }));
      };
      upstream.on('error', fail);
      req.pipe(upstream);
    });
    // Longer than the client's own keep-alive, so that the client, not the server, closes idle connections.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }

  close(): Promise<void> {
    this.agent.destroy();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * Two API processes behind a round-robin proxy and two worker processes, all from the production
 * build, under a steady mixed load (Send Template to a Cloud API channel, signed inbound
 * notifications, sandbox Outbound IVR calls, and the webhooks all of them cause), while one worker
 * and then one API are killed with SIGKILL and started again.
 */
describe('Replicas under fire: two APIs and two workers, one of each killed -9 under load', () => {
  const runId = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/msg_test_replicas_${runId}`;
  const redisPrefix = `msgtest:replicas:${runId}`;
  let fake: FakeCloudApi;
  let receiver: WebhookReceiver;
  let proxy: RoundRobinProxy;
  const apis: Replica[] = [];
  const workers: Replica[] = [];

  before(async () => {
    fake = await FakeCloudApi.start({ acceptedTokens: [CLOUD_TOKEN] });
    fake.templatePages = [{ data: [TEMPLATE] }];
    // Meta answers a send in a few hundred ms: a worker killed mid-load has sends in flight.
    fake.sendLatencyMs = 300;
    receiver = await WebhookReceiver.start();
    const env = {
      ...baseTestEnv(databaseUrl, redisPrefix),
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: '10',
      WHATSAPP_GRAPH_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s,2s,4s,8s',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '10000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '10000',
      RATE_LIMIT_UNAUTHENTICATED_REQUESTS_PER_MINUTE: '1000000',
      SHUTDOWN_GRACE_MS: '3000',
      // Recovery runs on the production timescale of minutes; here it must act within the test.
      // Rows a killed API committed but never pushed are found by the other processes' next poll
      // (200 ms). A job a killed worker held is taken up by a live worker once its Bull lock runs
      // out: with a 6 s lock, within 12 s (lock + stalled check) instead of a minute. The relay's
      // check that dispatched, unfinished jobs are still in Redis runs every 5 s instead of 5 min,
      // so that if it ever pushed a live job again the double send would show here.
      OUTBOX_POLL_INTERVAL_MS: '200',
      QUEUE_LOCK_DURATION_MS: '6000',
      OUTBOX_RECOVER_AFTER_MS: '5000',
      // Received notifications a killed worker had claimed are claimed again once its lease lapses: 5 s here, not 2 min.
      WHATSAPP_INTAKE_LEASE_MS: '5000',
    };
    const [apiPorts, workerPorts] = [
      [await freePort(), await freePort()],
      [await freePort(), await freePort()],
    ];
    apiPorts.forEach((port, i) => apis.push(new Replica(`api${i}`, { ...env, APP_ROLE: 'api' }, port)));
    workerPorts.forEach((port, i) => workers.push(new Replica(`worker${i}`, { ...env, APP_ROLE: 'worker', LOG_LEVEL: 'info' }, port)));
    // The first creates the database and migrates it; the others (and every restart) only connect.
    apis[0].start();
    await apis[0].ready();
    for (const replica of [apis[1], ...workers]) replica.start({ MIGRATIONS_RUN: 'false' });
    await Promise.all([apis[1], ...workers].map((replica) => replica.ready()));
    proxy = new RoundRobinProxy(apiPorts);
    await proxy.start();
  });

  after(async () => {
    await Promise.all([...apis, ...workers].map((replica) => replica.stop()));
    await proxy?.close();
    await fake?.close();
    await receiver?.close();
    await dropDatabase(databaseUrl);
    await deleteRedisKeys(redisPrefix);
  });

  it('sends each accepted message once, ends each accepted call once, delivers every event, and answers 5xx only from the killed API', async () => {
    const admin = new HttpClient(proxy.url, ADMIN_KEY);
    const must = <T = unknown>(res: HttpResponse, what: string): T => {
      assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${res.text}`);
      return res.body as T;
    };
    const ws = must<{ id: string; webhookSecret: string }>(await admin.post('/admin/v1/workspaces', { name: 'Replicas' }), 'workspace');
    const sa = must<{ clientId: string; clientSecret: string }>(
      await admin.post(`/admin/v1/workspaces/${ws.id}/service-accounts`, { name: 'load' }),
      'service account',
    );
    const token = must<{ access_token: string }>(
      await new HttpClient(proxy.url).request('POST', '/connect/token', {
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: sa.clientId, client_secret: sa.clientSecret }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      'token',
    );
    const api = new HttpClient(proxy.url, token.access_token);
    const cloud = must<{ id: string }>(
      await admin.post(`/admin/v1/workspaces/${ws.id}/channels`, {
        name: 'Cloud WA',
        type: 2,
        phoneNumber: '+14155550990',
        webhookUrl: receiver.url('/wa'),
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: '106540352242990',
          wabaId: '555',
          accessToken: CLOUD_TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      }),
      'cloud channel',
    );
    assert.deepEqual(must(await admin.post(`/admin/v1/channels/${cloud.id}/templates/sync`), 'template sync'), { synced: 1 });
    const voice = must<{ id: string }>(
      await admin.post(`/admin/v1/workspaces/${ws.id}/channels`, {
        name: 'Voice',
        type: 1,
        phoneNumber: '+14155550991',
        voice: { provider: 'sandbox', fromNumber: '+14155550991', sandbox: { ringMs: 300, talkMs: 300, pressDigits: ['1'] } },
      }),
      'voice channel',
    );
    must(await admin.put(`/admin/v1/channels/${voice.id}/limits`, { callsPerSecond: 100, concurrentCalls: 1000 }), 'voice limits');
    const proxiedBefore = proxy.answers.length;

    // --- The load ---------------------------------------------------------------------------
    const sends = new Map<number, { status: number; eventId?: string; backend: string | null }>();
    const calls = new Map<number, { status: number; id?: string; backend: string | null }>();
    const inbound = new Map<number, { statuses: number[] }>();
    const sendOne = async (n: number) => {
      const res = await api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: cloud.id,
        templateName: TEMPLATE.name,
        language: 'en_US',
        toNumber: `1415557${String(n % 20).padStart(4, '0')}`,
        parameters: [{ type: 'Body', values: [{ type: 'text', text: `rf-send-${n}` }] }],
      });
      sends.set(n, { status: res.status, eventId: res.body?.conversationEventId, backend: res.headers.get('x-backend') });
    };
    const callOne = async (n: number) => {
      const res = await api.post('/v1/outbound-ivr', {
        channelId: voice.id,
        destinationNumber: '966501234567',
        audioFileUrl: 'https://media.example.com/ask.wav',
        options: [{ digit: '1', description: 'Yes' }],
        maxAudioRetries: 0,
        webhookUrl: receiver.url(`/ivr/${n}`),
      });
      calls.set(n, { status: res.status, id: res.body?.id, backend: res.headers.get('x-backend') });
    };
    // Meta retries a notification until it is answered 2xx; so does this sender (for up to 30 s).
    const notifyOne = async (n: number) => {
      const notification = FakeCloudApi.inboundText(`1415558${String(n).padStart(4, '0')}`, `wamid.rf-in-${n}`, `hello ${n}`);
      const entry = { statuses: [] as number[] };
      inbound.set(n, entry);
      while (entry.statuses.length < 120) {
        const status = await FakeCloudApi.notify(`${proxy.url}/v1/whatsapp/webhooks/${cloud.id}`, APP_SECRET, notification);
        entry.statuses.push(status);
        if (status === 200) return;
        await sleep(250);
      }
    };

    const started = Date.now();
    const inFlight: Promise<unknown>[] = [];
    const faults = (async () => {
      await sleep(FAULTS.workerKillAt);
      await workers[0].kill();
      await sleep(FAULTS.downMs);
      workers[0].start({ MIGRATIONS_RUN: 'false' });
      await sleep(FAULTS.apiKillAt - FAULTS.workerKillAt - FAULTS.downMs);
      const apiKilledAt = Date.now();
      await apis[0].kill();
      await sleep(FAULTS.downMs);
      apis[0].start({ MIGRATIONS_RUN: 'false' });
      await Promise.all([apis[0].ready(), workers[0].ready()]);
      return { apiKilledAt, apiBackAt: Date.now() };
    })();
    faults.catch(() => undefined); // awaited after the load
    const counters = { send: 0, inbound: 0, call: 0 };
    const kinds = Object.keys(EVERY_MS) as Array<keyof typeof EVERY_MS>;
    const run = { send: sendOne, inbound: notifyOne, call: callOne };
    for (let tick = 0; Date.now() - started < LOAD_MS; tick += 50) {
      for (const kind of kinds) if (tick % EVERY_MS[kind] === 0) inFlight.push(run[kind](++counters[kind]));
      await sleep(Math.max(0, started + tick + 50 - Date.now()));
    }
    await Promise.all(inFlight);
    const { apiKilledAt, apiBackAt } = await faults;

    // --- What must have happened --------------------------------------------------------------
    const acceptedSends = [...sends].filter(([, s]) => s.status === 200);
    const acceptedCalls = [...calls].filter(([, c]) => c.status === 200);
    const sendNumber = (body: unknown) => Number(/rf-send-(\d+)/.exec(JSON.stringify(body))?.[1] ?? NaN);
    const atProvider = () => {
      const seen = new Map<number, number>();
      for (const request of fake.sends) seen.set(sendNumber(request.body), (seen.get(sendNumber(request.body)) ?? 0) + 1);
      return seen;
    };
    const signed = (path: (p: string) => boolean) =>
      receiver.received
        .filter((r) => path(r.path))
        .map((r) => ({ r, payload: verifySignature(r, ws.webhookSecret) as Record<string, any> }));
    const waMessages = () => signed((p) => p === '/wa');
    const outcomesOf = (n: number) => receiver.at(`/ivr/${n}`);
    const inboundDelivered = (n: number) =>
      waMessages().some(({ payload }) => payload.direction === 'Inbound' && payload.body === `hello ${n}`);
    // A sent message's webhook names it by the provider's id (the wamid the fake answered).
    const wamidOf = (n: number) => {
      const request = fake.sends.find((r) => sendNumber(r.body) === n);
      return (request?.answer?.body as { messages?: Array<{ id: string }> } | undefined)?.messages?.[0].id;
    };
    const sentDelivered = (n: number) =>
      waMessages().some(({ payload }) => payload.direction === 'Outbound' && payload.messageId === wamidOf(n) && payload.status === 'Sent');

    // A send whose worker was killed while Meta was being asked is not asked again (Meta has no
    // idempotency key): it ends Failed WhatsApp:SendInterrupted, having reached Meta once or never.
    const interrupted = (n: number) =>
      waMessages().some(
        ({ payload }) =>
          payload.messageId === sends.get(n)!.eventId && payload.status === 'Failed' && payload.errorCode === 'WhatsApp:SendInterrupted',
      );
    const missing = () => {
      const provider = atProvider();
      const open = acceptedSends.filter(([n]) => !interrupted(n));
      return {
        notAtProvider: open.filter(([n]) => !provider.has(n)).map(([n]) => n),
        sentNotDelivered: open.filter(([n]) => !sentDelivered(n)).map(([n]) => n),
        callsWithoutOutcome: acceptedCalls.filter(([n]) => outcomesOf(n).length === 0).map(([n]) => n),
        inboundNotDelivered: [...inbound.keys()].filter((n) => !inboundDelivered(n)),
      };
    };
    const drained = await waitFor(
      async () => Object.values(missing()).every((list) => list.length === 0),
      DRAIN_MS,
      'the work to drain',
    ).catch((err: Error) => new Error(`${err.message}: ${JSON.stringify(missing())}`));
    // Late duplicates (a job taken up again after its lock ran out) have had time to show.
    await sleep(2_000);

    const provider = atProvider();
    const doubled = [...provider].filter(([, count]) => count > 1);
    const interruptedSends = acceptedSends.map(([n]) => n).filter(interrupted);
    const unknownAtProvider = [...provider.keys()].filter((n) => !sends.has(n));
    const callRecords = await Promise.all(
      acceptedCalls.map(async ([n, c]) => ({ n, record: (await api.get(`/v1/outbound-ivr/${c.id}`)).body })),
    );
    const outcomeIds = acceptedCalls.map(([n]) => new Set(outcomesOf(n).map((r) => String(r.headers['webhook-id']))));
    // Every delivery of one event carries one webhook-id; a second id for the same event is a second event.
    const eventKey = ({ payload }: { payload: Record<string, any> }) => `${payload.messageId}|${payload.direction}|${payload.status}`;
    const idsByEvent = new Map<string, Set<string>>();
    for (const delivery of waMessages())
      idsByEvent.set(eventKey(delivery), (idsByEvent.get(eventKey(delivery)) ?? new Set()).add(String(delivery.r.headers['webhook-id'])));
    const deliveriesPerId = new Map<string, number>();
    for (const r of receiver.received)
      deliveriesPerId.set(String(r.headers['webhook-id']), (deliveriesPerId.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    const answers = proxy.answers.slice(proxiedBefore);
    const fiveHundreds = answers.filter((a) => a.status >= 500);
    const byKilled = fiveHundreds.filter((a) => a.backend === 0 && a.proxyError && a.at >= apiKilledAt - 50 && a.at <= apiBackAt + 1_000);

    console.log(
      [
        `Replicas under fire (${((Date.now() - started) / 1000).toFixed(0)} s, load ${LOAD_MS / 1000} s; worker0 killed at ${FAULTS.workerKillAt / 1000} s, api0 at ${FAULTS.apiKillAt / 1000} s):`,
        `  sends: ${sends.size} requested, ${acceptedSends.length} accepted, ${fake.sends.length} at the provider (${provider.size} distinct), ${doubled.length} doubled, ${unknownAtProvider.length} unknown`,
        `         ${interruptedSends.length} interrupted by the worker's death and not sent again (${interruptedSends.filter((n) => provider.has(n)).length} of them had reached the provider)`,
        `         not accepted: ${JSON.stringify(countBy([...sends.values()].filter((s) => s.status !== 200).map((s) => String(s.status))))}; of them at the provider: ${[...sends].filter(([n, s]) => s.status !== 200 && provider.has(n)).length}`,
        `  calls: ${calls.size} requested, ${acceptedCalls.length} accepted, ${outcomeIds.filter((ids) => ids.size === 1).length} with one outcome, ${outcomeIds.filter((ids) => ids.size > 1).length} with more, ${outcomeIds.filter((ids) => ids.size === 0).length} with none; results ${JSON.stringify(countBy(callRecords.map(({ record }) => `${record.status}/${record.result}`)))}`,
        `  inbound: ${inbound.size} notifications, ${[...inbound.values()].filter((i) => i.statuses.length > 1).length} retried after a non-2xx`,
        `  events: ${idsByEvent.size} whatsapp.message + ${outcomeIds.filter((ids) => ids.size > 0).length} outbound_ivr.completed; deliveries ${receiver.received.length}, ${[...deliveriesPerId.values()].filter((c) => c > 1).length} redelivered with the same webhook-id`,
        `  HTTP: ${answers.length} answered through the proxy, ${fiveHundreds.length} 5xx, ${byKilled.length} of them 502 for the killed API ${JSON.stringify(countBy(byKilled.map((a) => a.proxyError!)))} (down ${((apiBackAt - apiKilledAt) / 1000).toFixed(1)} s)`,
      ].join('\n'),
    );
    const diagnose = () =>
      [...apis, ...workers].map((r) => `=== ${r.name} ===\n${r.output().slice(-4000)}`).join('\n') +
      `\n5xx: ${JSON.stringify(fiveHundreds.slice(0, 10))}`;

    assert.ok(!(drained instanceof Error), `${(drained as Error).message}\n${diagnose()}`);
    assert.ok(acceptedSends.length > 50 && acceptedCalls.length > 15 && inbound.size > 50, 'the load ran');
    assert.deepEqual(doubled, [], 'no send reached the provider twice');
    assert.deepEqual(unknownAtProvider, [], 'the provider saw only requested sends');
    assert.deepEqual(
      acceptedSends.filter(([n]) => provider.get(n) !== 1 && !interrupted(n)).map(([n]) => n),
      [],
      'every accepted send at the provider exactly once (or, interrupted mid-call, at most once and Failed)',
    );
    for (const { n, record } of callRecords) assert.ok(record.status >= 4, `call ${n} ended: ${JSON.stringify(record)}`);
    assert.deepEqual(
      outcomeIds.map((ids, i) => [acceptedCalls[i][0], ids.size]).filter(([, size]) => size !== 1),
      [],
      'every accepted call has exactly one outcome (one webhook-id)',
    );
    for (const [n, c] of acceptedCalls) {
      const payload = verifySignature(outcomesOf(n)[0], ws.webhookSecret) as { id: string };
      assert.equal(payload.id, c.id, `the outcome at /ivr/${n} is its call's`);
    }
    assert.deepEqual(
      [...idsByEvent].filter(([, ids]) => ids.size > 1),
      [],
      'each whatsapp.message event delivered under one webhook-id',
    );
    assert.deepEqual(
      fiveHundreds.filter((a) => !byKilled.includes(a)),
      [],
      'no 5xx except the proxy’s 502 for the API while it was killed',
    );
    assert.ok(byKilled.length > 0, 'the killed API was sent requests while it was down');
  });
});

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}
