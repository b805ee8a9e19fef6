import autocannon from 'autocannon';
import { FakeTwilio } from '../../test/support/fake-twilio.js';
import { startWorker, type BenchContext } from '../context.js';
import { freePort, NodeProcess } from '../harness.js';
import { StatementRelay, statementLines, statementsBetween } from '../statement-relay.js';
import type { Scenario, ScenarioResult } from './index.js';
import { IVR_WORKER_ENV, ivrBody, startOutcomeReceiver } from './outbound-ivr.js';

const CALLS = Number(process.env.BENCH_RECORDING_CALLS ?? 200);
/** Each sandbox prompt lasts this long: a recording of zero length would measure nothing. */
const TALK_MS = Number(process.env.BENCH_RECORDING_TALK_MS ?? 200);
const DOWNLOAD_MINUTES = Number(process.env.BENCH_RECORDING_MINUTES ?? 10);

/** A sandbox channel that answers at once, talks TALK_MS per prompt and presses 1; limits raised. */
async function talkingSandboxChannel(ctx: BenchContext, name: string): Promise<string> {
  const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
    name,
    type: 1,
    phoneNumber: '+14155557300',
    voice: { provider: 'sandbox', fromNumber: '+14155557300', sandbox: { ringMs: 0, talkMs: TALK_MS, pressDigits: ['1'] } },
  });
  await ctx.admin('PUT', `/admin/v1/channels/${channel.id}/limits`, { callsPerSecond: 1000, concurrentCalls: 1000 });
  return channel.id as string;
}

/** CALLS calls requested back to back; request → outcome webhook delays (ms, sorted) and the ids of the calls. */
async function callsInARow(ctx: BenchContext, channelId: string, record: boolean, tag: string) {
  const receiver = await startOutcomeReceiver();
  const requestedAt = new Map<string, number>();
  const ids: string[] = [];
  let n = 0;
  try {
    const result = await autocannon({
      url: `${ctx.apiUrl}/v1/outbound-ivr`,
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      connections: 8,
      amount: CALLS,
      requests: [
        {
          setupRequest: (req: autocannon.Request) => {
            const externalId = `rec-${tag}-${process.pid}-${++n}`;
            requestedAt.set(externalId, Date.now());
            const body = { ...(JSON.parse(ivrBody(channelId, receiver.url('/outcome'), externalId)) as object), record };
            return { ...req, body: JSON.stringify(body) };
          },
          onResponse: (status: number, body: string) => {
            if (status === 200) ids.push((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    });
    const waitUntil = Date.now() + 180_000;
    while (receiver.outcomes.size < result['2xx'] && Date.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 100));
    const delays = [...receiver.outcomes].map(([id, at]) => at - (requestedAt.get(id) ?? at)).sort((a, b) => a - b);
    return { accepted: result['2xx'], outcomes: receiver.outcomes.size, delays, ids };
  } finally {
    receiver.close();
  }
}

const p95 = (sorted: number[]) => sorted[Math.floor(sorted.length * 0.95)] ?? Infinity;

/**
 * Issue 33: CALLS recorded sandbox calls requested back to back, then as many unrecorded ones, on
 * one worker: every recorded call has its recording stored (its file served), and the outcome
 * webhooks' p95 delay is at most 1 s longer than without recording. The workspace has OpenAI-compatible
 * providers (a fake on 127.0.0.1): every recording is also transcribed and summarised.
 */
export const recordedCallsScenario: Scenario = {
  name: `Call recording: ${CALLS} recorded sandbox calls in a row vs ${CALLS} unrecorded (two rounds each), one worker`,
  async run(ctx): Promise<ScenarioResult> {
    const channelId = await talkingSandboxChannel(ctx, 'Bench recording');
    const openai = await startFakeOpenAi();
    const provider = (model: string) => ({ provider: 'openai-compatible', baseUrl: openai.url, model, apiKeyRef: 'sk-bench' });
    await ctx.call('PUT', '/v1/call-intelligence', { transcription: provider('whisper-1'), summary: provider('gpt-4o-mini') });
    // The worker's statements are counted (a relay in front of PostgreSQL): what recording adds per call.
    const relay = await StatementRelay.start(ctx.databaseUrl);
    const worker = await startWorker(ctx, { ...IVR_WORKER_ENV, DATABASE_URL: relay.databaseUrl });
    try {
      // Rounds in the order plain, recorded, recorded, plain (the machine's drift cancels out); the
      // last plain round starts once every recording is analysed, so that it competes with none.
      const atStart = await relay.texts();
      const plainFirst = await callsInARow(ctx, channelId, false, 'plain1');
      const afterPlain = await relay.texts();
      const recorded = [await callsInARow(ctx, channelId, true, 'recorded1'), await callsInARow(ctx, channelId, true, 'recorded2')];
      const recordedIds = recorded.flatMap((round) => round.ids);
      let stored = 0;
      let served = 0;
      for (const id of recordedIds) {
        const record = (await ctx.call('GET', `/v1/outbound-ivr/${id}`)) as { recordingUrl: string | null };
        if (!record.recordingUrl) continue;
        stored++;
        // Every tenth file fetched whole: the URL serves the WAV.
        if (stored % 10 === 1) {
          const res = await fetch(record.recordingUrl);
          if (res.ok && res.headers.get('content-type') === 'audio/wav' && (await res.arrayBuffer()).byteLength > 44) served++;
        } else served++;
      }
      const analysed = await analysedWithin(ctx, recordedIds, 180_000);
      const afterRecorded = await relay.texts();
      const plain = [plainFirst, await callsInARow(ctx, channelId, false, 'plain2')];
      const mean = (rounds: Array<{ delays: number[] }>) => Math.round(rounds.reduce((sum, r) => sum + p95(r.delays), 0) / rounds.length);
      const extra = mean(recorded) - mean(plain);
      const perCall = (before: Record<string, number>, after: Record<string, number>, calls: number) =>
        (statementsBetween(before, after) / calls).toFixed(1);
      if (process.env.BENCH_VERBOSE) {
        console.log('  worker statements per unrecorded call:', ...statementLines(atStart, afterPlain, CALLS, 'call').map((l) => `\n${l}`));
        console.log(
          '  worker statements per recorded call:',
          ...statementLines(afterPlain, afterRecorded, 2 * CALLS, 'call').map((l) => `\n${l}`),
        );
      }
      const rounds = [plain[0], ...recorded, plain[1]];
      return {
        name: this.name,
        checks: [
          {
            what: `${rounds.map((r) => r.accepted).join('+')} accepted, ${rounds.map((r) => r.outcomes).join('+')} outcome webhooks`,
            ok: rounds.every((r) => r.outcomes >= CALLS),
          },
          {
            what: `${stored} of ${recordedIds.length} recordings stored, ${served} served`,
            ok: stored === 2 * CALLS && served === 2 * CALLS,
          },
          { what: `${analysed} of ${recordedIds.length} recordings analysed (transcript Completed)`, ok: analysed === 2 * CALLS },
          {
            what: `outcome webhook p95 by round (plain, recorded, recorded, plain): ${rounds.map((r) => p95(r.delays)).join(', ')} ms; recorded ${mean(recorded)} ms vs ${mean(plain)} ms (+${extra} ms ≤ 1000)`,
            ok: extra <= 1000,
          },
          {
            what: `worker statements per call: ${perCall(atStart, afterPlain, CALLS)} unrecorded, ${perCall(afterPlain, afterRecorded, 2 * CALLS)} recorded (stored and analysed)`,
            ok: true,
          },
          { what: `worker peak RSS ${worker.peakRssMb()} MB`, ok: true },
        ],
      };
    } finally {
      await worker.stop();
      await relay.stop();
      await openai.process.stop();
    }
  },
};

/** The OpenAI-compatible fake in a child process (bench/fake-openai-process.ts), once it listens. */
async function startFakeOpenAi(): Promise<{ process: NodeProcess; url: string }> {
  const port = await freePort();
  const child = NodeProcess.start('dist/bench/fake-openai-process.js', { PORT: String(port) });
  const deadline = Date.now() + 10_000;
  while (!/listening/.test(child.log)) {
    if (Date.now() > deadline || child.child.exitCode !== null) throw new Error(`The fake OpenAI did not start:\n${child.log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { process: child, url: `http://127.0.0.1:${port}/v1` };
}

/** How many of the calls' analyses completed, waiting at most `withinMs` for the last ones. */
async function analysedWithin(ctx: BenchContext, ids: string[], withinMs: number): Promise<number> {
  const deadline = Date.now() + withinMs;
  const done = new Set<string>();
  while (Date.now() < deadline) {
    for (const id of ids) {
      if (done.has(id)) continue;
      const transcript = (await ctx.call('GET', `/v1/outbound-ivr/${id}/transcript`)) as { status: string };
      if (transcript.status === 'Completed') done.add(id);
    }
    if (done.size === ids.length) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return done.size;
}

const AUTH_TOKEN = 'bench-twilio-auth-token-0123456789';
const ACCOUNT_SID = 'AC00000000000000000000000000000bench';

/**
 * Issue 33: a DOWNLOAD_MINUTES-minute dual-channel WAV (about 19 MB for 10 minutes) from a fake
 * Twilio on 127.0.0.1, streamed into storage by one worker; its RSS sampled every 50 ms from just
 * before the call until the recording is stored. Target: growth ≤ 20 MB.
 */
export const recordingDownloadScenario: Scenario = {
  name: `Call recording: a ${DOWNLOAD_MINUTES}-minute WAV downloaded from Twilio, worker RSS growth`,
  async run(ctx): Promise<ScenarioResult> {
    const fake = await FakeTwilio.start(AUTH_TOKEN);
    const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
      name: 'Bench Twilio recording',
      type: 1,
      phoneNumber: '+14155557400',
      voice: { provider: 'twilio', accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, fromNumber: '+14155557400' },
    });
    const worker = await startWorker(ctx, { TWILIO_API_URL: fake.url });
    /** Places one 10-minute call and samples the worker's RSS until `done` says it is over; growth over the RSS just before. */
    const measure = async (record: boolean, tag: string) => {
      const before = worker.rssMb();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, worker.rssMb())), 50);
      fake.expectCall({ answer: true, digits: ['1'], durationSeconds: DOWNLOAD_MINUTES * 60 });
      const started = Date.now();
      const created = (await ctx.call('POST', '/v1/outbound-ivr', {
        ...(JSON.parse(ivrBody(channel.id as string, 'https://hooks.example.com/ivr', `${tag}-${process.pid}`)) as object),
        record,
      })) as { id: string };
      type Record = { status: number; recordingUrl: string | null; recordingDurationMs: number | null; recordingError: string | null };
      let found: Record | undefined;
      while (Date.now() - started < 300_000) {
        found = (await ctx.call('GET', `/v1/outbound-ivr/${created.id}`)) as Record;
        if (record ? found.recordingUrl || found.recordingError : found.status >= 4) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      clearInterval(sampler);
      return { before, peak, growth: peak - before, seconds: (Date.now() - started) / 1000, record: found };
    };
    try {
      await new Promise((resolve) => setTimeout(resolve, 2000)); // let the worker settle after boot
      // The same call unrecorded first: what placing and following a call costs without the download.
      const control = await measure(false, 'control');
      const run = await measure(true, 'download');
      const deleted = [...fake.recordings.values()].every((r) => r.deleted);
      return {
        name: this.name,
        checks: [
          {
            what: `stored ${run.record?.recordingDurationMs ?? 0} ms of audio in ${run.seconds.toFixed(1)} s (call to stored)${run.record?.recordingError ? `: ${run.record.recordingError}` : ''}`,
            ok: run.record?.recordingDurationMs === DOWNLOAD_MINUTES * 60_000,
          },
          { what: `deleted at Twilio: ${deleted}`, ok: deleted },
          {
            what: `control (same call unrecorded, first): RSS ${control.before} → peak ${control.peak} MB, growth ${control.growth} MB`,
            ok: true,
          },
          { what: `recorded: worker RSS ${run.before} MB before, peak ${run.peak} MB: growth ${run.growth} MB ≤ 20`, ok: run.growth <= 20 },
        ],
      };
    } finally {
      await worker.stop();
      await fake.close();
    }
  },
};
