import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DomainError, ErrorKind } from '../errors/domain-error.js';
import { IdempotencyRecordsRepository } from './idempotency-records.repository.js';

const RETENTION_MS = 24 * 3600 * 1000;
/** A first request that has not finished after this long is presumed dead (its process crashed). */
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
      if (existing) await this.records.delete(workspaceId, { key, createdAt: existing.createdAt });
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

  async complete(workspaceId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.records.update(workspaceId, { key }, { responseStatus: status, responseBody: body as object });
  }

  /** The request failed: free the key so the client may retry. */
  async release(workspaceId: string, key: string): Promise<void> {
    await this.records.delete(workspaceId, { key });
  }

  purgeExpired(): Promise<number> {
    return this.records.deleteUnscopedExpired(new Date());
  }
}
