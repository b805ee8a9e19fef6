import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhook endpoints (API.md §11.1): the endpoints table; deliveries name their endpoint, the
 * conversation or contact an ordered endpoint serialises on, and a write-order number. A SQL
 * function makes time-ordered UUIDs (v7) for the delivery rows a fan-out writes in one statement
 * (PostgreSQL 15 has none built in). The earlier version's undelivered `webhook-events` outbox rows
 * are removed: no endpoint existed then to take them.
 */
export class WebhookEndpoints1795552380000 implements MigrationInterface {
  name = 'WebhookEndpoints1795552380000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "webhook_endpoints" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "url" character varying(2048) NOT NULL, "description" character varying(500), "event_types" character varying(50) array, "channel_ids" uuid array, "rate_limit_per_second" integer, "ordered" boolean NOT NULL DEFAULT false, "headers" jsonb NOT NULL DEFAULT '{}'::jsonb, "disabled" boolean NOT NULL DEFAULT false, "disabled_reason" character varying(500), "disabled_at" TIMESTAMP WITH TIME ZONE, "secret_sealed" text NOT NULL, "previous_secret_sealed" text, "previous_secret_expires_at" TIMESTAMP WITH TIME ZONE, "failing_since" TIMESTAMP WITH TIME ZONE, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_054c4cfb95223732f5939d2d546" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_68b79a6f7078361124acb03193" ON "webhook_endpoints" ("workspace_id", "creation_time")`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "endpoint_id" uuid`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "ordering_key" character varying(100)`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" ADD "seq" BIGSERIAL NOT NULL`);
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_deliveries_key_order" ON "webhook_deliveries" ("endpoint_id", "ordering_key", "seq") WHERE status = 'Pending' AND endpoint_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_7c6de8547d562b9374fba38403" ON "webhook_deliveries" ("workspace_id", "endpoint_id", "creation_time")`,
    );
    // RFC 9562 §5.7: 48 bits of Unix milliseconds, version 7, variant 10, the rest random.
    await queryRunner.query(
      `CREATE FUNCTION webhook_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE AS $$
         SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                  PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
                52, 1), 53, 1), 'hex')::uuid
       $$`,
    );
    await queryRunner.query(`DELETE FROM "outbox_messages" WHERE "queue" = 'webhook-events'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION webhook_uuid_v7()`);
    await queryRunner.query(`DROP INDEX "public"."IDX_7c6de8547d562b9374fba38403"`);
    await queryRunner.query(`DROP INDEX "public"."ix_webhook_deliveries_key_order"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "seq"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "ordering_key"`);
    await queryRunner.query(`ALTER TABLE "webhook_deliveries" DROP COLUMN "endpoint_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_68b79a6f7078361124acb03193"`);
    await queryRunner.query(`DROP TABLE "webhook_endpoints"`);
  }
}
