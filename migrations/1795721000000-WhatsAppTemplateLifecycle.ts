import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Templates managed here and kept current by Meta's lifecycle webhooks (API.md §14): Meta's id of
 * each template, its quality score and the reason of its last status change. Nullable columns
 * without defaults: adding them rewrites no row.
 */
export class WhatsAppTemplateLifecycle1795721000000 implements MigrationInterface {
  name = 'WhatsAppTemplateLifecycle1795721000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "whatsapp_templates" ADD "provider_template_id" character varying(64)`);
    await queryRunner.query(`ALTER TABLE "whatsapp_templates" ADD "quality_score" character varying(20)`);
    await queryRunner.query(`ALTER TABLE "whatsapp_templates" ADD "status_reason" character varying(1000)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "whatsapp_templates" DROP COLUMN "status_reason"`);
    await queryRunner.query(`ALTER TABLE "whatsapp_templates" DROP COLUMN "quality_score"`);
    await queryRunner.query(`ALTER TABLE "whatsapp_templates" DROP COLUMN "provider_template_id"`);
  }
}
