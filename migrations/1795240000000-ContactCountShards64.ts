import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spreads the contact counter over 64 shards instead of 8: every transaction that creates a
 * contact holds its shard's row until it commits, and calls and sends that create contacts run
 * by the hundred at once. Existing shard rows stay valid (the total is their sum).
 */
export class ContactCountShards641795240000000 implements MigrationInterface {
  name = 'ContactCountShards641795240000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(shardedFunction(64));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(shardedFunction(8));
  }
}

function shardedFunction(shards: number): string {
  return `
    CREATE OR REPLACE FUNCTION contact_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO contact_counts (workspace_id, shard, total)
          SELECT workspace_id, (txid_current() % ${shards})::smallint, count(*) FROM inserted_rows GROUP BY workspace_id
          ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
      ELSE
        INSERT INTO contact_counts (workspace_id, shard, total)
          SELECT workspace_id, (txid_current() % ${shards})::smallint, -count(*) FROM deleted_rows GROUP BY workspace_id
          ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
      END IF;
      RETURN NULL;
    END $$`;
}
