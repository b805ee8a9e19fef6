import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * WhatsApp call permission (API.md §15): the reads every Create Outbound IVR to a WhatsApp user
 * makes use indexes instead of the workspace's calls: its answered calls to the user in the last
 * 24 h (Meta's limit on connected calls), and the calls waiting for the user's permission (partial:
 * few calls wait at once).
 */
export class CallPermissionIndexes1795880005000 implements MigrationInterface {
  name = 'CallPermissionIndexes1795880005000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "ix_outbound_ivr_connected" ON "outbound_ivr_requests" ("workspace_id", "channel_id", "destination_number", "answered_at") WHERE answered_at IS NOT NULL AND direction = 2`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_outbound_ivr_awaiting_permission" ON "outbound_ivr_requests" ("workspace_id", "channel_id", "destination_number") WHERE awaiting_permission`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_outbound_ivr_awaiting_permission"`);
    await queryRunner.query(`DROP INDEX "ix_outbound_ivr_connected"`);
  }
}
