import { MigrationInterface, QueryRunner } from 'typeorm';

/** A campaign's recipient keeps the contact's BSUID: an IVR campaign over WhatsApp calls a contact without a number by it. */
export class CampaignRecipientUserIds1795880008100 implements MigrationInterface {
  name = 'CampaignRecipientUserIds1795880008100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaign_recipients" ADD "whats_app_user_id" character varying(150)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "campaign_recipients" DROP COLUMN "whats_app_user_id"`);
  }
}
