import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Calls from WhatsApp users answered with a flow (API.md §15) are IVR records too: their direction
 * (1 Inbound, 2 Outbound as before), Meta's SDP offer the worker answers, and no outcome webhook URL.
 */
export class WhatsAppUserCalls1795880002500 implements MigrationInterface {
  name = 'WhatsAppUserCalls1795880002500';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "direction" smallint NOT NULL DEFAULT 2`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "offer_sdp" text`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ALTER COLUMN "webhook_url" DROP NOT NULL`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DELETE FROM "outbound_ivr_requests" WHERE "direction" = 1`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ALTER COLUMN "webhook_url" SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "offer_sdp"`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "direction"`);
  }
}
