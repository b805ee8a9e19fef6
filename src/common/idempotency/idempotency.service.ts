import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { IsNull, LessThanOrEqual, type EntityManager } from 'typeorm';
import { DomainError, ErrorKind } from '../errors/domain-error.js';
import { IdempotencyRecordsRepository } from './idempotency-records.repository.js';
import type { PendingResponse } from './stored-response.js';

const RETENTION_MS = 24 * 3600 * 1000;
/**
 * A first request that has not finished after this long is presumed dead (its process crashed)
 * before its change committed: a request that commits a change stores its response in the same
 * transaction ({@link IdempotencyService.storeResponse}), so a record still in flight means nothing
 * was committed, and the request may run again.
 */
const STALE_IN_FLIGHT_MS = 60_000;

export type IdempotencyClaim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: unknown };

export function requestFingerprint(method: string, route: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${route}\n${JSON.stringify(body ?? null)}`)
    .digest('hex');
}

/** Stores the first response per workspace and key, so retries of a send never send twice. */
@Injectable()
export class IdempotencyService {
  constructor(private readonly records: IdempotencyRecordsRepository) {}

  /** Claims the key for this request, or returns the stored response; 422 / 409 as API.md §1 says. */
  async claim(workspaceId: string, key: string, requestHash: string, attempt = 0): Promise<IdempotencyClaim> {
    const now = Date.now();
    if (await this.records.insertIfAbsent(workspaceId, key, requestHash, new Date(now + RETENTION_MS))) return { kind: 'claimed' };
    const existing = await this.records.findOne(workspaceId, { key });
    const expired = existing && existing.expiresAt.getTime() <= now;
    const abandoned = existing && existing.responseStatus === null && now - existing.createdAt.getTime() > STALE_IN_FLIGHT_MS;
    if ((!existing || expired || abandoned) && attempt < 3) {
      // An abandoned claim is deleted only while still in flight: a change committed since the read above stored its response.
      if (existing && expired) await this.records.delete(workspaceId, { key, expiresAt: LessThanOrEqual(new Date(now)) });
      else if (existing && abandoned) await this.records.deleteInFlight(workspaceId, key, new Date(now - STALE_IN_FLIGHT_MS));
      return this.claim(workspaceId, key, requestHash, attempt + 1);
    }
    if (!existing || existing.requestHash !== requestHash) {
      throw new DomainError('Idempotency:KeyReused', 'This Idempotency-Key was used with a different request.', ErrorKind.Unprocessable);
    }
    if (existing.responseStatus === null) {
      throw new DomainError('Idempotency:InFlight', 'A request with this Idempotency-Key is still being processed.', ErrorKind.Conflict);
    }
    return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
  }

  /** Stores the response of a request whose change did not store it itself (see {@link storeResponse}). */
  async complete(workspaceId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.records.update(workspaceId, { key, responseStatus: IsNull() }, { responseStatus: status, responseBody: body as object });
  }

  /**
   * Stores `response` in the transaction (`manager`) that makes the request's change, with the
   * values only the change knows (see {@link PendingResponse}); the key's record is then never in
   * flight once the change has committed. No-op without a response (no key).
   */
  async storeResponse(manager: EntityManager, response: PendingResponse | undefined, values: Record<string, unknown> = {}): Promise<void> {
    if (!response) return;
    if (
      await this.records
        .withManager(manager)
        .storeIfInFlight(response.workspaceId, response.key, response.status, response.complete(values))
    )
      response.stored();
  }

  /**
   * The request failed: free the key so the client may retry. A record whose response is stored
   * stays: the change committed (an error after it must not let a retry act again).
   */
  async release(workspaceId: string, key: string): Promise<void> {
    await this.records.deleteInFlight(workspaceId, key);
  }

  purgeExpired(): Promise<number> {
    return this.records.deleteUnscopedExpired(new Date());
  }
}
