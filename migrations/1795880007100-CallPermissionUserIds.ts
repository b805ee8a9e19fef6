import { MigrationInterface, QueryRunner } from 'typeorm';

/** A WhatsApp call permission is kept under the user's number or, when they share none, their BSUID (up to 135 characters). */
export class CallPermissionUserIds1795880007100 implements MigrationInterface {
  name = 'CallPermissionUserIds1795880007100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "whatsapp_call_permissions" ALTER COLUMN "user_number" TYPE character varying(150)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "whatsapp_call_permissions" WHERE length("user_number") > 32`);
    await queryRunner.query(`ALTER TABLE "whatsapp_call_permissions" ALTER COLUMN "user_number" TYPE character varying(32)`);
  }
}
