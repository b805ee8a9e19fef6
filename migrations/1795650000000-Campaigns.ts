import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Campaigns (API.md §13) and their recipients, snapshotted at start (one row per contact of the audience). */
export class Campaigns1795650000000 implements MigrationInterface {
  name = 'Campaigns1795650000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "campaigns" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "channel_id" uuid NOT NULL, "kind" character varying(20) NOT NULL, "status" character varying(20) NOT NULL, "paused_reason" character varying(100), "template" jsonb, "ivr" jsonb, "audience" jsonb NOT NULL, "redial" jsonb, "scheduled_at" TIMESTAMP WITH TIME ZONE, "started_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "creator_id" uuid, "creator_name" character varying(200), "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_campaigns" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_campaigns_workspace_creation" ON "campaigns" ("workspace_id", "creation_time") `);
    await queryRunner.query(
      `CREATE TABLE "campaign_recipients" ("campaign_id" uuid NOT NULL, "contact_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "phone_number" character varying(32), "status" character varying(20) NOT NULL, "conversation_event_id" uuid, "outbound_ivr_id" uuid, "error_code" character varying(100), "attempts" smallint NOT NULL DEFAULT '0', "lease_until" TIMESTAMP WITH TIME ZONE, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_campaign_recipients" PRIMARY KEY ("campaign_id", "contact_id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_campaign_recipients_status" ON "campaign_recipients" ("workspace_id", "campaign_id", "status") `,
    );
    await queryRunner.query(`CREATE INDEX "IDX_campaign_recipients_event" ON "campaign_recipients" ("conversation_event_id") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "campaign_recipients"`);
    await queryRunner.query(`DROP TABLE "campaigns"`);
  }
}
