import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The delivery statuses reported for each outbound WhatsApp message (bits), so that a status Meta
 * reports late still goes out once. Events from before stay null (nothing known of them); new ones
 * start at 0. Both statements change only the catalogue, whatever the table's size.
 */
export class ReportedStatuses1795880000500 implements MigrationInterface {
  name = 'ReportedStatuses1795880000500';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "reported_statuses" smallint`);
    await queryRunner.query(`ALTER TABLE "conversation_events" ALTER COLUMN "reported_statuses" SET DEFAULT '0'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" DROP COLUMN "reported_statuses"`);
  }
}
