import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { LessThanOrEqual } from 'typeorm';
import { newId } from '../id.js';
import { DomainError, ErrorKind } from '../errors/domain-error.js';
import { IdempotencyRecordsRepository, type KeyClaim } from './idempotency-records.repository.js';
import type { PendingResponse } from './stored-response.js';

const RETENTION_MS = 24 * 3600 * 1000;
/**
 * A first request that has not finished after this long is presumed dead (its process crashed)
 * before its change committed: a request that commits a change stores its response in the same
 * transaction ({@link IdempotencyService.storeResponse}), so a record still in flight means nothing
 * was committed, and the request may run again.
 */
const STALE_IN_FLIGHT_MS = 60_000;

export type IdempotencyClaim = { kind: 'claimed'; token: string } | { kind: 'replay'; status: number; body: unknown };

/**
 * The request's key was claimed again by another request while this one ran (it was presumed dead
 * after {@link STALE_IN_FLIGHT_MS}): its change must not commit. The other request is the one under way.
 */
export const IdempotencyKeyInFlight = () =>
  new DomainError('Idempotency:InFlight', 'A request with this Idempotency-Key is still being processed.', ErrorKind.Conflict);

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
    const token = newId();
    if (await this.records.insertIfAbsent(workspaceId, key, requestHash, new Date(now + RETENTION_MS), token))
      return { kind: 'claimed', token };
    const existing = await this.records.findOne(workspaceId, { key });
    const expired = existing && existing.expiresAt.getTime() <= now;
    const abandoned = existing && existing.responseStatus === null && now - existing.createdAt.getTime() > STALE_IN_FLIGHT_MS;
    if ((!existing || expired || abandoned) && attempt < 3) {
      // An abandoned claim is deleted only while still in flight: a change committed since the read above stored its response.
      if (existing && expired) await this.records.delete(workspaceId, { key, expiresAt: LessThanOrEqual(new Date(now)) });
      else if (existing && abandoned) await this.records.deleteStaleInFlight(workspaceId, key, new Date(now - STALE_IN_FLIGHT_MS));
      return this.claim(workspaceId, key, requestHash, attempt + 1);
    }
    if (!existing || existing.requestHash !== requestHash) {
      throw new DomainError('Idempotency:KeyReused', 'This Idempotency-Key was used with a different request.', ErrorKind.Unprocessable);
    }
    if (existing.responseStatus === null) throw IdempotencyKeyInFlight();
    return { kind: 'replay', status: existing.responseStatus, body: existing.responseBody };
  }

  /**
   * Stores the response of a request whose change did not store it itself (see {@link storeResponse}),
   * unless its key was claimed again meanwhile: the other request's claim is left alone.
   */
  async complete(workspaceId: string, claim: KeyClaim, status: number, body: unknown): Promise<void> {
    await this.records.storeIfInFlight(workspaceId, claim, status, body);
  }

  /**
   * Stores `response` in the transaction (`manager`) that makes the request's change, with the
   * values only the change knows (see {@link PendingResponse}); the key's record is then never in
   * flight once the change has committed. No-op without a response (no key).
   */
  async storeResponse(response: PendingResponse | undefined, values: Record<string, unknown> = {}): Promise<void> {
    if (!response) return;
    const claim = { key: response.key, token: response.token };
    if (!(await this.records.storeIfInFlight(response.workspaceId, claim, response.status, response.complete(values))))
      throw IdempotencyKeyInFlight(); // rolls the change back: the key is another request's now
    response.stored();
  }

  /**
   * The request failed: free the key so the client may retry. A record whose response is stored
   * stays: the change committed (an error after it must not let a retry act again).
   */
  async release(workspaceId: string, claim: KeyClaim): Promise<void> {
    await this.records.deleteOwnInFlight(workspaceId, claim);
  }

  purgeExpired(): Promise<number> {
    return this.records.deleteUnscopedExpired(new Date());
  }
}
