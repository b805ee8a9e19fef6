import { MigrationInterface, QueryRunner } from 'typeorm';

/** WhatsApp call permissions per number and user, and IVR calls that wait for one (API.md §15). */
export class WhatsAppCallPermissions1795880004000 implements MigrationInterface {
  name = 'WhatsAppCallPermissions1795880004000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "whatsapp_call_permissions" ("workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "user_number" character varying(32) NOT NULL, "status" character varying(10), "expires_at" TIMESTAMP WITH TIME ZONE, "permanent" boolean NOT NULL DEFAULT false, "answered_at" TIMESTAMP WITH TIME ZONE, "requested_at" TIMESTAMP WITH TIME ZONE array NOT NULL DEFAULT '{}', CONSTRAINT "PK_whatsapp_call_permissions" PRIMARY KEY ("workspace_id", "channel_id", "user_number"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "outbound_ivr_requests" ADD "awaiting_permission" boolean NOT NULL DEFAULT false, ADD "permission_deadline" TIMESTAMP WITH TIME ZONE, ADD "permission_template" jsonb, ADD "permission_request_text" character varying(1024)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "outbound_ivr_requests" DROP COLUMN "permission_request_text", DROP COLUMN "permission_template", DROP COLUMN "permission_deadline", DROP COLUMN "awaiting_permission"`,
    );
    await queryRunner.query(`DROP TABLE "whatsapp_call_permissions"`);
  }
}
