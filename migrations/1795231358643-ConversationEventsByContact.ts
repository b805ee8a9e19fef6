import { MigrationInterface, QueryRunner } from 'typeorm';

export class ConversationEventsByContact1795231358643 implements MigrationInterface {
  name = 'ConversationEventsByContact1795231358643';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_a1db830b8e99e95c53278642b6" ON "conversation_events"  ("workspace_id", "contact_id", "channel_id", "creation_time") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_a1db830b8e99e95c53278642b6"`);
  }
}
