import { MigrationInterface, QueryRunner } from 'typeorm';

export class WhatsAppUsage1795870680052 implements MigrationInterface {
  name = 'WhatsAppUsage1795870680052';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "whatsapp_rate_cards" ("workspace_id" uuid NOT NULL, "currency" character varying(3) NOT NULL, "per_category" jsonb NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_whatsapp_rate_cards" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "whatsapp_usage_days" ("workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "day" date NOT NULL, "campaign_id" uuid NOT NULL, "category" character varying(40) NOT NULL, "pricing_type" character varying(40) NOT NULL, "billable" boolean NOT NULL, "messages" integer NOT NULL DEFAULT '0', CONSTRAINT "PK_whatsapp_usage_days" PRIMARY KEY ("workspace_id", "channel_id", "day", "campaign_id", "category", "pricing_type", "billable"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_whatsapp_usage_days_campaign" ON "whatsapp_usage_days"  ("workspace_id", "campaign_id") `);
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "pricing" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" DROP COLUMN "pricing"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_whatsapp_usage_days_campaign"`);
    await queryRunner.query(`DROP TABLE "whatsapp_usage_days"`);
    await queryRunner.query(`DROP TABLE "whatsapp_rate_cards"`);
  }
}
