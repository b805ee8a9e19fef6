import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The intake of Meta's webhook notifications (`whatsapp_intake`): the edge writes a signed
 * notification in one INSERT and answers 200; workers claim rows in batches and record their
 * messages. Processed rows are kept for retention to delete by age.
 */
export class WhatsAppIntake1795600000000 implements MigrationInterface {
  name = 'WhatsAppIntake1795600000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "whatsapp_intake" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "body" text NOT NULL, "received_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "claimed_until" TIMESTAMP WITH TIME ZONE, "attempts" integer NOT NULL DEFAULT '0', "processed_at" TIMESTAMP WITH TIME ZONE, "last_error" character varying(1000), CONSTRAINT "PK_whatsapp_intake" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_whatsapp_intake_pending" ON "whatsapp_intake" ("received_at") WHERE processed_at IS NULL`);
    await queryRunner.query(
      `CREATE INDEX "ix_whatsapp_intake_processed" ON "whatsapp_intake" ("processed_at") WHERE processed_at IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_whatsapp_intake_processed"`);
    await queryRunner.query(`DROP INDEX "ix_whatsapp_intake_pending"`);
    await queryRunner.query(`DROP TABLE "whatsapp_intake"`);
  }
}
