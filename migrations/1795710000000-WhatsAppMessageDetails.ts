import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * WhatsApp as Meta sends it in 2026 (API.md §14): a message's referral (ad attribution), referred
 * product, forwarding flags, edit history, deletion time and source (the WhatsApp Business app), and
 * a conversation's first referral, filtered by its source id. Nullable columns without defaults:
 * adding them rewrites no row.
 */
export class WhatsAppMessageDetails1795710000000 implements MigrationInterface {
  name = 'WhatsAppMessageDetails1795710000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "referral" jsonb`);
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "referred_product" jsonb`);
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "forwarded" boolean`);
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "frequently_forwarded" boolean`);
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "edit_history" jsonb`);
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "revoked_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "source" character varying(20)`);
    await queryRunner.query(`ALTER TABLE "conversations" ADD "referral" jsonb`);
    await queryRunner.query(
      `CREATE INDEX "IDX_conversations_referral_source" ON "conversations" ("workspace_id", ((referral ->> 'sourceId'))) WHERE referral IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_conversations_referral_source"`);
    await queryRunner.query(`ALTER TABLE "conversations" DROP COLUMN "referral"`);
    for (const column of ['source', 'revoked_at', 'edit_history', 'frequently_forwarded', 'forwarded', 'referred_product', 'referral']) {
      await queryRunner.query(`ALTER TABLE "conversation_events" DROP COLUMN "${column}"`);
    }
  }
}
