import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { sendAll, type ProbeCase, type ProbeResult } from './probe.js';
import { ProbeBuilder } from './walk-probes.js';
import { EXPECTED_REFUSALS, operationsOf, RUN_LAST, validInputs, type WalkOperation } from './walk-operations.js';
import { buildWorld, type WalkWorld } from './walk-world.js';

/**
 * HOSTILE_SEED reproduces a run. HOSTILE_BUDGET_MS bounds it: each operation gets an equal share of
 * what is left, and the calls that do not fit are counted as skipped in the summary.
 */
const SEED = Number(process.env.HOSTILE_SEED ?? randomInt(2 ** 31));
const BUDGET_MS = Number(process.env.HOSTILE_BUDGET_MS ?? 90_000);
/** Random cases per operation, on top of the systematic ones. */
const RANDOM_RUNS = Number(process.env.HOSTILE_RANDOM_RUNS ?? 15);
const CONCURRENCY = 4;
/** HOSTILE_REPORT=<file> writes every call and its answer there, one JSON line each. */
const REPORT = process.env.HOSTILE_REPORT;
/** HOSTILE_ONLY=<regex> walks only the operations whose operationId matches (to reproduce a failure quickly). */
const ONLY = process.env.HOSTILE_ONLY ? new RegExp(process.env.HOSTILE_ONLY) : undefined;

function ordered(operations: WalkOperation[]): WalkOperation[] {
  const last = (op: WalkOperation) => RUN_LAST.indexOf(op.operationId);
  const rest = operations.filter((op) => last(op) < 0);
  const removing = operations.filter((op) => last(op) >= 0).sort((a, b) => last(a) - last(b));
  const unknownRemovals = rest.filter((op) => op.method === 'DELETE');
  return [...rest.filter((op) => op.method !== 'DELETE'), ...unknownRemovals, ...removing];
}

const describeResult = (r: ProbeResult) => `${r.probe.operationId} [${r.probe.label}] → ${r.status} ${r.text.slice(0, 300)}`;

describe(`Hostile walk of every operation of the OpenAPI document (HOSTILE_SEED=${SEED})`, () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let world: WalkWorld;
  let operations: WalkOperation[];
  const results: ProbeResult[] = [];
  let skipped = 0;
  let planned = 0;

  before(async () => {
    receiver = await WebhookReceiver.start();
    t = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '10000000',
      RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '1000000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000000',
      RATE_LIMIT_TOKEN_REQUESTS_PER_MINUTE: '1000000',
    });
    world = await buildWorld(t, receiver);
    operations = ordered(operationsOf((await t.http.get('/docs-json')).body)).filter((op) => !ONLY || ONLY.test(op.operationId));
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('answers every valid call with a 2xx, so that hostile ones reach the code behind validation', async () => {
    const credentials = {
      bearer: world.ws.token,
      adminKey: ADMIN_KEY,
      jwtSecret: process.env.JWT_SECRET!,
      apiScope: process.env.API_SCOPE ?? 'messaging_api',
      serviceAccountId: world.ws.serviceAccountId,
      workspaceId: world.ws.workspaceId,
    };
    const started = Date.now();
    const deadline = started + BUDGET_MS;
    const refused: string[] = [];
    const plans = operations.map((op, index) => {
      const builder = new ProbeBuilder(op, validInputs(op, world), credentials, index);
      const probes: ProbeCase[] = [
        ...builder.pathProbes(),
        ...builder.queryProbes(),
        ...builder.bodyProbes(),
        ...builder.headerProbes(),
        ...builder.authProbes(),
        ...builder.randomProbes(SEED + index, builder.costly ? Math.ceil(RANDOM_RUNS / 5) : RANDOM_RUNS),
      ];
      return { op, builder, valid: builder.valid(), probes };
    });
    let unsent = plans.reduce((sum, plan) => sum + plan.probes.length, 0);
    planned = plans.reduce((sum, plan) => sum + plan.valid.length + plan.probes.length, 0);
    for (const { op, valid: validProbes, probes } of plans) {
      const valid = await sendAll(t.baseUrl, validProbes, 1, Number.POSITIVE_INFINITY);
      results.push(...valid.results);
      for (const r of valid.results)
        if ((r.status < 200 || r.status >= 300) && !EXPECTED_REFUSALS[op.operationId]) refused.push(describeResult(r));
      // Each operation gets the share of what is left of the budget that its calls are of the calls left,
      // so that all operations are walked even on a slow machine.
      const share = Date.now() + ((deadline - Date.now()) * probes.length) / unsent;
      unsent -= probes.length;
      const sent = await sendAll(t.baseUrl, probes, CONCURRENCY, share);
      results.push(...sent.results);
      skipped += sent.skipped;
    }
    const ms = Date.now() - started;
    if (REPORT) {
      const line = (r: ProbeResult) =>
        JSON.stringify({
          operationId: r.probe.operationId,
          label: r.probe.label,
          status: r.status,
          ms: Math.round(r.ms),
          text: r.text.slice(0, 500),
        });
      writeFileSync(REPORT, results.map(line).join('\n'));
    }
    const byStatus = new Map<number, number>();
    for (const r of results) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    const serverErrors = results.filter((r) => r.status >= 500 || r.status === 0);
    const slowest = [...results].sort((a, b) => b.ms - a.ms)[0];
    console.log(
      [
        `Hostile walk: HOSTILE_SEED=${SEED}`,
        `operations ${operations.length}, calls ${results.length} of ${planned} planned, skipped ${skipped} (budget ${BUDGET_MS} ms), ${ms} ms`,
        `5xx or no answer: ${serverErrors.length}; stack traces: ${results.filter((r) => r.leaksStack).length}`,
        `statuses: ${[...byStatus]
          .sort(([a], [b]) => a - b)
          .map(([status, n]) => `${status}×${n}`)
          .join(' ')}`,
        `slowest: ${slowest.probe.operationId} [${slowest.probe.label}] ${Math.round(slowest.ms)} ms`,
      ].join('\n  '),
    );
    assert.deepEqual(refused, [], 'valid calls refused: the walk would not reach the code behind validation');
  });

  it('walked every operation', () => {
    const walked = new Set(results.map((r) => r.probe.operationId));
    if (!ONLY) assert.ok(operations.length >= 60, `only ${operations.length} operations in the document`);
    assert.deepEqual(
      operations.filter((op) => !walked.has(op.operationId)).map((op) => op.operationId),
      [],
    );
  });

  it('never answers 5xx (or not at all)', () => {
    const failures = results.filter((r) => r.status >= 500 || r.status === 0);
    const byCause = new Map<string, ProbeResult>();
    for (const r of failures) byCause.set(`${r.probe.operationId} ${r.probe.label}`, r);
    assert.equal(
      failures.length,
      0,
      `${failures.length} answers of 5xx (HOSTILE_SEED=${SEED}):\n${[...byCause.values()].slice(0, 60).map(describeResult).join('\n')}`,
    );
  });

  it('answers every refusal in the error envelope (Service Login in RFC 6749 form)', () => {
    const isEnvelope = (r: ProbeResult) => {
      try {
        const body = JSON.parse(r.text) as { statusCode?: unknown; error?: { code?: unknown } | string };
        if (r.probe.operationId === 'serviceLogin' && typeof body.error === 'string') return true;
        return body.statusCode === r.status && typeof body.error === 'object' && typeof body.error?.code === 'string';
      } catch {
        return false;
      }
    };
    // 431: headers (here the URL) larger than Node's HTTP parser takes, refused before there is a request.
    const bare = results.filter((r) => r.status >= 400 && r.status < 500 && r.status !== 431 && !isEnvelope(r));
    assert.deepEqual(bare.slice(0, 20).map(describeResult), []);
  });

  it('never shows a stack trace or a source path', () => {
    const leaks = results.filter((r) => r.leaksStack);
    assert.deepEqual(leaks.slice(0, 20).map(describeResult), []);
  });
});
