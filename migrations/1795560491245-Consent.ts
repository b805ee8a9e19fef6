import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Consent (API.md §13): each contact's consent to WhatsApp marketing and to calls (status, when,
 * how), indexed where set (most contacts stay Unknown); the workspaces' stop and start words.
 */
export class Consent1795560491245 implements MigrationInterface {
  name = 'Consent1795560491245';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "send_policies" ("workspace_id" uuid NOT NULL, "stop_words" jsonb, "start_words" jsonb, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_c33886a9f6ad5ced636b049a4c6" PRIMARY KEY ("workspace_id"))`,
    );
    await queryRunner.query(`ALTER TABLE "contacts" ADD "whats_app_marketing_consent" character varying(10) NOT NULL DEFAULT 'Unknown'`);
    await queryRunner.query(`ALTER TABLE "contacts" ADD "whats_app_marketing_consent_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "contacts" ADD "whats_app_marketing_consent_source" character varying(10)`);
    await queryRunner.query(`ALTER TABLE "contacts" ADD "call_consent" character varying(10) NOT NULL DEFAULT 'Unknown'`);
    await queryRunner.query(`ALTER TABLE "contacts" ADD "call_consent_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "contacts" ADD "call_consent_source" character varying(10)`);
    await queryRunner.query(
      `CREATE INDEX "ix_contacts_call_consent" ON "contacts"  ("workspace_id", "call_consent") WHERE call_consent <> 'Unknown'`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_contacts_whats_app_marketing_consent" ON "contacts"  ("workspace_id", "whats_app_marketing_consent") WHERE whats_app_marketing_consent <> 'Unknown'`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."ix_contacts_whats_app_marketing_consent"`);
    await queryRunner.query(`DROP INDEX "public"."ix_contacts_call_consent"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "call_consent_source"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "call_consent_at"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "call_consent"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "whats_app_marketing_consent_source"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "whats_app_marketing_consent_at"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "whats_app_marketing_consent"`);
    await queryRunner.query(`DROP TABLE "send_policies"`);
  }
}
