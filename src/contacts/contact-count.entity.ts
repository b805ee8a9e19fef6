import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The number of contacts per workspace, kept by a statement-level trigger on `contacts` (see the
 * migration) so Get Contacts can answer `totalCount` without counting a million rows. Spread over
 * a few shards so that concurrent inserts do not all wait on one row; the total is their sum.
 */
@Entity('contact_counts')
export class ContactCountShard {
  @PrimaryColumn('uuid') workspaceId: string;
  @PrimaryColumn('smallint') shard: number;
  @Column({ type: 'bigint', default: 0 }) total: string;
}
