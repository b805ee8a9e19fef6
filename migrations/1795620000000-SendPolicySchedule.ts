import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rest of the send policy (quiet hours, where a contact's time zone comes from, the frequency
 * cap; null is each part's default) and when a scheduled call is due. Existing rows keep their
 * defaults; existing calls were not scheduled.
 */
export class SendPolicySchedule1795620000000 implements MigrationInterface {
  name = 'SendPolicySchedule1795620000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "send_policies" ADD "quiet_hours" jsonb, ADD "timezone" jsonb, ADD "frequency_cap" jsonb`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "scheduled_for" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "scheduled_for"`);
    await queryRunner.query(`ALTER TABLE "send_policies" DROP COLUMN "frequency_cap", DROP COLUMN "timezone", DROP COLUMN "quiet_hours"`);
  }
}
