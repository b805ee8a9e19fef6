import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Indexes by age for the retention job, which deletes finished outbox rows, old webhook deliveries
 * and old sandbox messages of every workspace in small batches.
 */
export class RetentionIndexes1795552260000 implements MigrationInterface {
  name = 'RetentionIndexes1795552260000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "ix_outbox_messages_completed" ON "outbox_messages" ("completed_at") WHERE completed_at IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX "ix_webhook_deliveries_creation_time" ON "webhook_deliveries" ("creation_time")`);
    await queryRunner.query(`CREATE INDEX "ix_whatsapp_sandbox_messages_creation_time" ON "whatsapp_sandbox_messages" ("creation_time")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_whatsapp_sandbox_messages_creation_time"`);
    await queryRunner.query(`DROP INDEX "ix_webhook_deliveries_creation_time"`);
    await queryRunner.query(`DROP INDEX "ix_outbox_messages_completed"`);
  }
}
