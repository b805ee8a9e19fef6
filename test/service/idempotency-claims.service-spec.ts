import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { DomainError } from '../../src/common/errors/domain-error.js';
import { IdempotencyService } from '../../src/common/idempotency/idempotency.service.js';
import { PendingResponse, runIdempotent, storeResponseCte } from '../../src/common/idempotency/stored-response.js';
import { pgError } from '../../src/database/pg-errors.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';
import { currentManager, inTransaction } from '../../src/database/transactions.js';

const HASH = 'a'.repeat(64);

/**
 * A request presumed dead after 60 s in flight may have its Idempotency-Key claimed again; if it
 * was only slow, its change must then not commit, whichever way it stores its response.
 */
describe('Idempotency-Key claims carry a token that the response writes match (service tier, real PostgreSQL)', () => {
  let ctx: ServiceTestContext;
  let service: IdempotencyService;
  const workspaceId = randomUUID();
  let key: string;
  /** The slow first request's claim, and the claim made again after it was presumed dead. */
  let slow: string;
  let again: string;

  /** The request's response as its change's write sees it, inside the request's claim. */
  const pendingFor = (token: string) =>
    runIdempotent({ workspaceId, key, token, status: 200 }, () => PendingResponse.of(workspaceId, () => ({ sent: true })));
  const probeRows = async () => (await ctx.dataSource.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM idem_probe`))[0].n;
  const record = async () =>
    (
      await ctx.dataSource.query<Array<{ claim_token: string; response_status: number | null }>>(
        `SELECT claim_token, response_status FROM idempotency_records WHERE workspace_id = $1 AND key = $2`,
        [workspaceId, key],
      )
    )[0];

  before(async () => {
    ctx = await serviceTestModule([]);
    service = ctx.get(IdempotencyService);
    // Stands in for a request's change: a row the write adds.
    await ctx.dataSource.query(`CREATE TABLE idem_probe (n int)`);
  });
  after(() => ctx.close());

  beforeEach(async () => {
    key = `key-${randomUUID()}`;
    await ctx.dataSource.query(`DELETE FROM idem_probe`);
    const first = await service.claim(workspaceId, key, HASH);
    assert.equal(first.kind, 'claimed');
    slow = first.kind === 'claimed' ? first.token : '';
    // 61 s later the first request has not finished: its claim counts as abandoned, and a retry takes the key.
    await ctx.dataSource.query(
      `UPDATE idempotency_records SET created_at = created_at - interval '61 seconds' WHERE workspace_id = $1 AND key = $2`,
      [workspaceId, key],
    );
    const second = await service.claim(workspaceId, key, HASH);
    assert.equal(second.kind, 'claimed', 'the retry claims the key again');
    again = second.kind === 'claimed' ? second.token : '';
    assert.notEqual(again, slow);
  });

  it('rolls back the slow request’s change in its transaction (409 Idempotency:InFlight); the retry’s commits', async () => {
    const late = inTransaction(async () => {
      await currentManager().query(`INSERT INTO idem_probe VALUES (1)`);
      await service.storeResponse(pendingFor(slow).value);
    });
    await assert.rejects(late, (err) => err instanceof DomainError && err.code === 'Idempotency:InFlight');
    assert.equal(await probeRows(), 0, 'the slow request changed nothing');
    assert.deepEqual(await record(), { claim_token: again, response_status: null }, 'the retry’s claim is untouched');

    await inTransaction(async () => {
      await currentManager().query(`INSERT INTO idem_probe VALUES (2)`);
      await service.storeResponse(pendingFor(again).value);
    });
    assert.equal(await probeRows(), 1);
    assert.equal((await record()).response_status, 200);
  });

  it('undoes the slow request’s one-statement change (SQLSTATE MSI01); the retry’s stores its response with it', async () => {
    const statement = (token: string) => {
      const stored = storeResponseCte(pendingFor(token).value, { workspaceId: '$1', from: 'change', firstParam: 2 })!;
      return ctx.dataSource.query<Array<{ idempotent_response_stored: boolean }>>(
        `WITH change AS (INSERT INTO idem_probe VALUES (1) RETURNING n), ${stored.cte} SELECT n, ${stored.storedColumn} FROM change`,
        [workspaceId, ...stored.params],
      );
    };
    await assert.rejects(statement(slow), (err) => pgError.is(err, 'idempotency-claim-lost'));
    assert.equal(await probeRows(), 0, 'the statement’s change was undone');
    const [row] = await statement(again);
    assert.equal(row.idempotent_response_stored, true);
    assert.equal(await probeRows(), 1);
    assert.equal((await record()).response_status, 200);
  });

  it('neither completes nor releases the retry’s claim for the slow request', async () => {
    await service.complete(workspaceId, { key, token: slow }, 201, { late: true });
    await service.release(workspaceId, { key, token: slow });
    assert.deepEqual(await record(), { claim_token: again, response_status: null }, 'still the retry’s, in flight');
    await service.complete(workspaceId, { key, token: again }, 201, { done: true });
    const replay = await service.claim(workspaceId, key, HASH);
    assert.deepEqual(replay, { kind: 'replay', status: 201, body: { done: true } });
  });
});
