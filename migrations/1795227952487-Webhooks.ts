import { MigrationInterface, QueryRunner } from 'typeorm';

export class Webhooks1795227952487 implements MigrationInterface {
  name = 'Webhooks1795227952487';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_deliveries" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "kind" character varying(50) NOT NULL, "target_url" character varying(2048) NOT NULL, "payload" jsonb NOT NULL, "status" character varying(20) NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "cycle_attempts" integer NOT NULL DEFAULT '0', "last_status_code" smallint, "last_error" character varying(1000), "next_attempt_at" TIMESTAMP WITH TIME ZONE, "last_attempt_at" TIMESTAMP WITH TIME ZONE, "lease_until" TIMESTAMP WITH TIME ZONE, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_535dd409947fb6d8fc6dfc0112a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_overdue" ON "webhook_deliveries"  ("next_attempt_at") WHERE status = 'Pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_5af757f57ad1d051045c7d1107" ON "webhook_deliveries"  ("workspace_id", "status", "creation_time") `,
    );
    await queryRunner.query(`CREATE INDEX "IDX_c986c48bfa586d3cad8dc8eaca" ON "webhook_deliveries"  ("workspace_id", "creation_time") `);
    await queryRunner.query(`ALTER TABLE "outbox_messages" ADD "completed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE INDEX "ix_outbox_messages_unfinished" ON "outbox_messages"  ("dispatched_at") WHERE dispatched_at IS NOT NULL AND completed_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_outbox_messages_unfinished"`);
    await queryRunner.query(`ALTER TABLE "outbox_messages" DROP COLUMN "completed_at"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_c986c48bfa586d3cad8dc8eaca"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_5af757f57ad1d051045c7d1107"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_overdue"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
  }
}
