import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An IVR call's `destination_number` holds a WhatsApp user's BSUID (API.md §15) when the user
 * shares no number: a two-letter country code, a dot, `ENT.` for a parent BSUID, and up to 128
 * letters and digits, as long as Create Outbound IVR accepts (150).
 */
export class WhatsAppUserIdDestinations1795880006000 implements MigrationInterface {
  name = 'WhatsAppUserIdDestinations1795880006000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ALTER COLUMN "destination_number" TYPE character varying(150)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // Fails while a call to a BSUID longer than a number is kept, rather than cutting it short.
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ALTER COLUMN "destination_number" TYPE character varying(20)`);
  }
}
