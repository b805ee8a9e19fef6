import { MigrationInterface, QueryRunner } from 'typeorm';

export class WhatsAppCalling1795879079932 implements MigrationInterface {
  name = 'WhatsAppCalling1795879079932';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channels" ADD "whats_app_calling" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channels" DROP COLUMN "whats_app_calling"`);
  }
}
