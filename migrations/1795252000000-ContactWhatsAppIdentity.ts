import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts known by a WhatsApp business-scoped user id: the phone number becomes optional, three
 * WhatsApp identity columns (each unique in the workspace where set), and a check that a contact has
 * a phone number or a BSUID. Existing contacts all have a phone number and keep it.
 */
export class ContactWhatsAppIdentity1795252000000 implements MigrationInterface {
  name = 'ContactWhatsAppIdentity1795252000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "contacts" ADD "whats_app_user_id" character varying(150)`);
    await queryRunner.query(`ALTER TABLE "contacts" ADD "whats_app_parent_user_id" character varying(150)`);
    await queryRunner.query(`ALTER TABLE "contacts" ADD "whats_app_username" character varying(100)`);
    await queryRunner.query(`ALTER TABLE "contacts" ALTER COLUMN "phone_number" DROP NOT NULL`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_contacts_whats_app_user_id" ON "contacts" ("workspace_id", "whats_app_user_id") WHERE whats_app_user_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_contacts_whats_app_parent_user_id" ON "contacts" ("workspace_id", "whats_app_parent_user_id") WHERE whats_app_parent_user_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_contacts_whats_app_username" ON "contacts" ("workspace_id", "whats_app_username") WHERE whats_app_username IS NOT NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "contacts" ADD CONSTRAINT "ck_contacts_identity" CHECK (phone_number IS NOT NULL OR whats_app_user_id IS NOT NULL)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // Contacts known only by a BSUID cannot exist without a phone number: they go, with what cascades from them.
    await queryRunner.query(`DELETE FROM "contacts" WHERE "phone_number" IS NULL`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP CONSTRAINT "ck_contacts_identity"`);
    await queryRunner.query(`DROP INDEX "public"."ux_contacts_whats_app_username"`);
    await queryRunner.query(`DROP INDEX "public"."ux_contacts_whats_app_parent_user_id"`);
    await queryRunner.query(`DROP INDEX "public"."ux_contacts_whats_app_user_id"`);
    await queryRunner.query(`ALTER TABLE "contacts" ALTER COLUMN "phone_number" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "whats_app_username"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "whats_app_parent_user_id"`);
    await queryRunner.query(`ALTER TABLE "contacts" DROP COLUMN "whats_app_user_id"`);
  }
}
