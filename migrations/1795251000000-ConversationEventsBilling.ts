import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Whether the provider charges for an outbound WhatsApp message, as its status notifications' `pricing` says. */
export class ConversationEventsBilling1795251000000 implements MigrationInterface {
  name = 'ConversationEventsBilling1795251000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "is_billable" boolean`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" DROP COLUMN "is_billable"`);
  }
}
