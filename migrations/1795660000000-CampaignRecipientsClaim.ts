import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dispatcher's claim walks a campaign's recipients still to send, in contact order: a partial
 * index of exactly those, so that a claim reads a batch's rows rather than every recipient already
 * sent before them (the claims of a 100,000-recipient campaign were quadratic on the primary key).
 */
export class CampaignRecipientsClaim1795660000000 implements MigrationInterface {
  name = 'CampaignRecipientsClaim1795660000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_campaign_recipients_unsent" ON "campaign_recipients" ("workspace_id", "campaign_id", "contact_id")
        WHERE status = 'Pending' AND conversation_event_id IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "IDX_campaign_recipients_unsent"`);
  }
}
