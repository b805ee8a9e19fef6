import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EspeakThread } from '../../src/speech/espeak-thread.js';
import { callPermissionReply } from '../../test/support/call-permission.js';
import { FakeCloudApi } from '../../test/support/fake-cloud-api.js';
import { startWorker, type BenchContext } from '../context.js';
import type { EdgeStats } from '../whatsapp-call-edge-process.js';
import type { Scenario, ScenarioResult } from './index.js';
import { IVR_WORKER_ENV } from './outbound-ivr.js';

const CALLS = Number(process.env.BENCH_WHATSAPP_IVR_CALLS ?? 100);
const TOKEN = 'EAAG-bench-whatsapp-ivr';
const APP_SECRET = 'bench-whatsapp-ivr-secret';
const PHONE_NUMBER_ID = '930';
const KEY = '1';
/** About 15 s of speech: long enough for a hundred calls started at RAMP_RATE a second to play at once. */
const QUESTION =
  'Hello, this is a reminder from the clinic of your appointment tomorrow, Monday, at ten in the morning, with doctor Jensen on the second floor. Please bring your insurance card and arrive ten minutes early. Press one to confirm, two to cancel, or stay on the line to hear this message again.';
/** Calls placed per second in the measured round (the channel's limit): a campaign's calls starting over a few seconds. */
const RAMP_RATE = Number(process.env.BENCH_WHATSAPP_IVR_RATE ?? 20);
const LATE_P99_MS = 10;
const FIRST_PACKET_MS = 500;

/** The worker's media pacing reports (see src/voice/whatsapp-calls/media-thread-log.ts), from its JSON log. */
interface PacingReport {
  prompts: number;
  packets: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const pacingReports = (log: string): PacingReport[] =>
  log
    .split('\n')
    .filter((line) => line.includes('"pacing"'))
    .map((line) => (JSON.parse(line) as { pacing: PacingReport }).pacing);

const user = (n: number) => `96655${String(n).padStart(7, '0')}`;
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1))] ?? NaN;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Meta's side (Graph `/calls` and the called users' WebRTC peers) in its own process: bench/whatsapp-call-edge-process.ts. */
class Edge {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(env: Record<string, string>): Promise<Edge> {
    const child = fork(join(__dirname, '..', 'whatsapp-call-edge-process.js'), { env: { ...process.env, ...env } });
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (message: { type: string; url: string }) => resolve(message.url));
      child.once('exit', (code) => reject(new Error(`the WhatsApp edge exited ${code}`)));
    });
    return new Edge(child, url);
  }

  stats(): Promise<EdgeStats> {
    return new Promise((resolve) => {
      this.child.once('message', (message: { stats: EdgeStats }) => resolve(message.stats));
      this.child.send({ type: 'stats' });
    });
  }

  stop(): void {
    this.child.kill();
  }
}

/** The question as eSpeak says it, uploaded as a prompt: its URL and length. */
async function uploadQuestion(ctx: BenchContext): Promise<{ url: string; durationMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-wa-ivr-'));
  const espeak = new EspeakThread();
  try {
    await espeak.speak(QUESTION, 'en-us+f3', join(dir, 'question.wav'));
    const form = new FormData();
    form.append('audioFile', new Blob([readFileSync(join(dir, 'question.wav'))], { type: 'audio/wav' }), 'question.wav');
    const res = await fetch(`${ctx.apiUrl}/v1/support/upload-audio`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${ctx.token}` },
    });
    if (!res.ok) throw new Error(`upload-audio → ${res.status} ${await res.text()}`);
    return (await res.json()) as { url: string; durationMs: number };
  } finally {
    await espeak.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each of `users` allows the number to call them (Meta's `call_permission_reply`), and the worker has recorded it. */
async function grantPermissions(ctx: BenchContext, channelId: string, webhookUrl: string, users: string[]): Promise<void> {
  for (const number of users) {
    const reply = callPermissionReply(PHONE_NUMBER_ID, number, 'accept', true, `wamid.bench.permission.${number}`);
    const status = await FakeCloudApi.notify(webhookUrl, APP_SECRET, reply);
    if (status !== 200) throw new Error(`the permission reply was answered ${status}`);
  }
  const deadline = Date.now() + 60_000;
  for (const number of users) {
    const { conversation } = await ctx.call('POST', '/v2/conversations/service-account/create', { channelId, phoneNumber: `+${number}` });
    while ((await ctx.call('GET', `/v1/contacts/${conversation.contactId}/consent`)).whatsAppCalls?.status !== 'Granted') {
      if (Date.now() > deadline) throw new Error(`the permission of ${number} was not recorded within 60 s`);
      await sleep(200);
    }
  }
}

interface Round {
  completed: number;
  seconds: number;
  failures: string[];
  edge: EdgeStats;
  reports: PacingReport[];
  cpuSeconds: number;
  peakRssMb: number;
}

interface RoundSetup {
  channelId: string;
  question: { url: string; durationMs: number };
  edge: Edge;
  users: string[];
  callsPerSecond: number;
}

/** CALLS calls to `users` placed at most `callsPerSecond` a second by a worker of their own; its figures once all have ended. */
async function round(ctx: BenchContext, setup: RoundSetup): Promise<Round> {
  await ctx.admin('PUT', `/admin/v1/channels/${setup.channelId}/limits`, { callsPerSecond: setup.callsPerSecond, concurrentCalls: 1000 });
  const worker = await startWorker(ctx, {
    ...IVR_WORKER_ENV,
    WHATSAPP_GRAPH_URL: setup.edge.url,
    WHATSAPP_CALL_HOST_ADDRESSES: '127.0.0.1',
    LOG_LEVEL: 'info',
  });
  try {
    await grantPermissions(ctx, setup.channelId, `${ctx.apiUrl}/v1/whatsapp/webhooks/${setup.channelId}`, setup.users);
    const cpuBefore = worker.cpuSeconds();
    const started = Date.now();
    const ids = await Promise.all(
      setup.users.map(async (number) => {
        const created = await ctx.call('POST', '/v1/outbound-ivr', {
          channelId: setup.channelId,
          destinationNumber: number,
          audioFileUrl: setup.question.url,
          options: [
            { digit: '1', description: 'Confirm' },
            { digit: '2', description: 'Cancel' },
          ],
          webhookUrl: 'https://hooks.example.com/bench-whatsapp-ivr',
          maxAudioRetries: 0,
          inputTimeoutMs: 15_000,
        });
        return created.id as string;
      }),
    );
    let records: Array<{ status: number; pressedDigit: string | null; errorMessage: string | null }> = [];
    const deadline = Date.now() + 180_000;
    do {
      await sleep(1000);
      records = await Promise.all(ids.map((id) => ctx.call('GET', `/v1/outbound-ivr/${id}`)));
    } while (records.some((record) => record.status < 4) && Date.now() < deadline);
    const seconds = (Date.now() - started) / 1000;
    const cpuSeconds = worker.cpuSeconds() - cpuBefore;
    const peakRssMb = worker.peakRssMb();
    const edge = await setup.edge.stats();
    await worker.stop(); // the worker reports its last pacing window as it shuts down
    return {
      completed: records.filter((record) => record.status === 4 && record.pressedDigit === KEY).length,
      seconds,
      failures: [...new Set(records.filter((r) => r.status !== 4).map((r) => `${r.status}: ${r.errorMessage}`))].slice(0, 3),
      edge,
      reports: pacingReports(worker.log),
      cpuSeconds,
      peakRssMb,
    };
  } finally {
    await worker.stop();
  }
}

const lateness = (reports: PacingReport[]) =>
  reports.map((r) => `p50 ${r.p50Ms.toFixed(1)} / p99 ${r.p99Ms.toFixed(1)} / max ${r.maxMs.toFixed(1)} ms`).join('; ');
const spread = (values: number[]) =>
  `p50 ${quantile(values, 0.5).toFixed(0)} / p99 ${quantile(values, 0.99).toFixed(0)} / max ${Math.max(...values).toFixed(0)} ms`;

/** The checks of a round; the first packet's delay is judged in the measured round only (see the scenario). */
function roundChecks(name: string, r: Round, judgeFirstPacket: boolean): ScenarioResult['checks'] {
  const packets = r.reports.reduce((sum, report) => sum + report.packets, 0);
  const worstP99 = Math.max(...r.reports.map((report) => report.p99Ms));
  const firstPacket = r.edge.firstPacketAfterAcceptedMs;
  return [
    {
      what: `${name}: ${r.completed}/${CALLS} calls Completed with the digit ${KEY} in ${r.seconds.toFixed(1)} s${r.failures.length ? ` (others: ${r.failures.join('; ')})` : ''}; ${r.edge.keysPressed} keys pressed at the edge, ${r.edge.mostPromptsAtOnce} prompts playing at once`,
      ok: r.completed === CALLS && r.edge.mostPromptsAtOnce >= CALLS,
    },
    {
      what: `${name}: worker pacing ${packets} packets, lateness ${lateness(r.reports)} (p99 ≤ ${LATE_P99_MS})`,
      ok: r.reports.length > 0 && worstP99 <= LATE_P99_MS,
    },
    {
      what: `${name}: first prompt packet after ACCEPTED ${spread(firstPacket)} over ${firstPacket.length} calls${judgeFirstPacket ? ` (p99 ≤ ${FIRST_PACKET_MS})` : ''}`,
      ok: firstPacket.length === CALLS && (!judgeFirstPacket || quantile(firstPacket, 0.99) <= FIRST_PACKET_MS),
    },
    {
      what: `${name}: prompt packets at the edge per call min ${Math.min(...r.edge.packets)}, max ${Math.max(...r.edge.packets)}; worker CPU ${r.cpuSeconds.toFixed(1)} s (${((r.cpuSeconds * 1000) / Math.max(1, packets / 50)).toFixed(2)} ms per call-second of audio), peak RSS ${r.peakRssMb} MB`,
      ok: true,
    },
  ];
}

/**
 * Issue 32, the whole path: CALLS WhatsApp IVR calls at once through the API and one worker process
 * (its media thread carries every call's WebRTC peer). A process standing for Meta answers `/calls`
 * with a real WebRTC peer per call, posts the `calls` webhooks (RINGING, ACCEPTED), receives each
 * call's prompt (eSpeak, about 15 s) as Opus and presses 1 once it has heard it all.
 *
 * Two rounds, each with a worker of its own, both judged on pacing: every call Completed with the
 * digit, and the worker's packets on their 20 ms slots (its pacing report: p99 lateness ≤ 10 ms).
 * The measured round places the calls at RAMP_RATE a second (a campaign's calls starting over a few
 * seconds, all playing at once after that) and is also judged on the first prompt packet at the
 * user ≤ 500 ms after ACCEPTED (p99). The burst round places all of them at once: a hundred DTLS
 * handshakes in about two seconds queue in the media thread, so its first packets are shown, not
 * judged. The transport alone is measured by "WhatsApp call media".
 */
export const whatsAppIvrCallsScenario: Scenario = {
  name: `WhatsApp IVR calls: ${CALLS} at once through the API and one worker, real WebRTC peers as Meta`,
  async run(ctx): Promise<ScenarioResult> {
    const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
      name: 'Bench WhatsApp IVR',
      type: 2,
      phoneNumber: '+14155557930',
      whatsApp: {
        provider: 'cloud-api',
        phoneNumberId: PHONE_NUMBER_ID,
        wabaId: '931',
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        verifyToken: 'v',
      },
    });
    await ctx.call('PUT', `/v1/channels/${channel.id}/calling`, { enabled: true });
    const question = await uploadQuestion(ctx);
    const edge = await Edge.start({
      WEBHOOK_URL: `${ctx.apiUrl}/v1/whatsapp/webhooks/${channel.id}`,
      APP_SECRET,
      PHONE_NUMBER_ID,
      TOKEN,
      KEY,
      // The prompt heard to its last packet or one short of it (its length is rounded to the frame).
      PROMPT_PACKETS: String(Math.floor(question.durationMs / 20) - 1),
    });
    try {
      const users = (first: number) => Array.from({ length: CALLS }, (_, n) => user(first + n));
      const setup = { channelId: channel.id as string, question, edge };
      const ramp = await round(ctx, { ...setup, users: users(0), callsPerSecond: RAMP_RATE });
      const burst = await round(ctx, { ...setup, users: users(CALLS), callsPerSecond: 1000 });
      return {
        name: this.name,
        checks: [
          ...roundChecks(`${RAMP_RATE} calls/s`, ramp, true),
          ...roundChecks('all at once', burst, false),
          { what: `prompt ${question.durationMs} ms`, ok: true },
        ],
      };
    } finally {
      edge.stop();
    }
  },
};
