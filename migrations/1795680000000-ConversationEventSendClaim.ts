import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a run of an outbound WhatsApp message's job began asking the provider: the claim that keeps
 * two runs of one send (its job pushed again by the outbox while the first run is still asking, as
 * after Redis came back empty) from both sending. Nullable, no default: adding it rewrites nothing.
 */
export class ConversationEventSendClaim1795680000000 implements MigrationInterface {
  name = 'ConversationEventSendClaim1795680000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "send_claimed_at" TIMESTAMP WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" DROP COLUMN "send_claimed_at"`);
  }
}
