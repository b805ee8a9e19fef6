import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** The first response to an `Idempotency-Key`, kept 24 h (API.md §1). */
@Entity('idempotency_records')
@Index(['expiresAt'])
export class IdempotencyRecord {
  @PrimaryColumn('uuid') workspaceId: string;
  @PrimaryColumn({ type: 'varchar', length: 255 }) key: string;
  /** Method, route and SHA-256 of the body: a different request under the same key is a 422. */
  @Column({ type: 'varchar', length: 64 }) requestHash: string;
  /** Null while the first request is still running. */
  @Column({ type: 'smallint', nullable: true }) responseStatus: number | null;
  /**
   * Names the request that claimed the key; the writes storing its response match it, so a request
   * whose key was claimed again (presumed dead after a minute) cannot store into the new claim.
   * Null only for records claimed before the column existed.
   */
  @Column({ type: 'uuid', nullable: true }) claimToken: string | null;
  @Column({ type: 'jsonb', nullable: true }) responseBody: unknown;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz' }) expiresAt: Date;
}
