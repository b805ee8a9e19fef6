import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-workspace contact counts kept by statement-level triggers (one update per statement, so a
 * 10,000-row import is one increment). Rows spread over 8 shards by transaction id, so concurrent
 * writers rarely wait on the same row.
 */
export class ContactCounts1795229189136 implements MigrationInterface {
  name = 'ContactCounts1795229189136';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "contact_counts" ("workspace_id" uuid NOT NULL, "shard" smallint NOT NULL, "total" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_03b5250afec250566ce17d617f8" PRIMARY KEY ("workspace_id", "shard"))`,
    );
    await queryRunner.query(`
      CREATE FUNCTION contact_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO contact_counts (workspace_id, shard, total)
            SELECT workspace_id, (txid_current() % 8)::smallint, count(*) FROM inserted_rows GROUP BY workspace_id
            ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
        ELSE
          INSERT INTO contact_counts (workspace_id, shard, total)
            SELECT workspace_id, (txid_current() % 8)::smallint, -count(*) FROM deleted_rows GROUP BY workspace_id
            ON CONFLICT (workspace_id, shard) DO UPDATE SET total = contact_counts.total + EXCLUDED.total;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER contacts_count_insert AFTER INSERT ON contacts REFERENCING NEW TABLE AS inserted_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_counts_apply()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER contacts_count_delete AFTER DELETE ON contacts REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT EXECUTE FUNCTION contact_counts_apply()`,
    );
    // Contacts that exist already.
    await queryRunner.query(
      `INSERT INTO contact_counts (workspace_id, shard, total) SELECT workspace_id, 0, count(*) FROM contacts GROUP BY workspace_id`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER contacts_count_delete ON contacts`);
    await queryRunner.query(`DROP TRIGGER contacts_count_insert ON contacts`);
    await queryRunner.query(`DROP FUNCTION contact_counts_apply()`);
    await queryRunner.query(`DROP TABLE "contact_counts"`);
  }
}
