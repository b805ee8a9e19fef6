import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A transaction that creates or deletes contacts no longer waits for another one to commit because
 * their counter shards collide. The shard was the transaction id modulo 64, its row updated by
 * `ON CONFLICT DO UPDATE` and so locked until commit: a transaction that created a contact and then
 * had more to do (the worker's round of inbound messages creating every new sender with its
 * `contact.created` and `conversation.created` events, one after another) held its shard for the
 * whole round, and every request creating a contact that landed on that shard waited for it with a
 * pooled connection held; with an endpoint taking every event, enough of them waited to drain the
 * API's pool. Now each transaction takes a shard nobody else is writing: the first of its preferred
 * shard (the transaction id modulo 64) and the ones after it whose transaction-scoped advisory lock
 * it gets without waiting, so the row it updates is never one another open transaction updated. The
 * count is still the sum of the workspace's shards, exact; rows beyond 64 appear only while more
 * than 64 such transactions of a workspace are open at once.
 */
export class ContactCountShardsUnblocked1795670000000 implements MigrationInterface {
  name = 'ContactCountShardsUnblocked1795670000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Every writer of a shard row holds the shard's advisory lock until its transaction ends, so a
    // shard whose lock is granted has no uncommitted update by anyone else (the lock is re-entrant:
    // a transaction's later statements get its own shards again). Only when 1,024 shards are all
    // taken does it wait, for its preferred one.
    await queryRunner.query(`
      CREATE FUNCTION contact_counts_free_shard(workspace uuid, preferred int) RETURNS int LANGUAGE plpgsql AS $$
      DECLARE
        key int := hashtext('contact_counts:' || workspace::text);
      BEGIN
        FOR i IN 0..1023 LOOP
          IF pg_try_advisory_xact_lock(key, (preferred + i) % 1024) THEN
            RETURN (preferred + i) % 1024;
          END IF;
        END LOOP;
        PERFORM pg_advisory_xact_lock(key, preferred);
        RETURN preferred;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION contact_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        change record;
        preferred int := (txid_current() % 64)::int;
        chosen int;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          FOR change IN SELECT workspace_id, count(*) AS n FROM inserted_rows GROUP BY workspace_id LOOP
            chosen := contact_counts_free_shard(change.workspace_id, preferred);
            INSERT INTO contact_counts (workspace_id, shard, total) VALUES (change.workspace_id, chosen, change.n)
              ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
          END LOOP;
        ELSE
          FOR change IN SELECT workspace_id, count(*) AS n FROM deleted_rows GROUP BY workspace_id LOOP
            chosen := contact_counts_free_shard(change.workspace_id, preferred);
            INSERT INTO contact_counts (workspace_id, shard, total) VALUES (change.workspace_id, chosen, -change.n)
              ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
          END LOOP;
        END IF;
        RETURN NULL;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION contact_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO contact_counts (workspace_id, shard, total)
            SELECT workspace_id, (txid_current() % 64)::smallint, count(*) FROM inserted_rows GROUP BY workspace_id
            ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
        ELSE
          INSERT INTO contact_counts (workspace_id, shard, total)
            SELECT workspace_id, (txid_current() % 64)::smallint, -count(*) FROM deleted_rows GROUP BY workspace_id
            ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`DROP FUNCTION contact_counts_free_shard(uuid, int)`);
  }
}
