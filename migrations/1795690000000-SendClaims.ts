import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The send claim moves from a column of `conversation_events` to a table of its own, so that one
 * statement can read the message's status and insert the claim (the column needed a status read
 * and a second update of the message row on every send). Claims held in the column while this runs
 * are not carried over (they last seconds; copying them would scan the whole events table).
 */
export class SendClaims1795690000000 implements MigrationInterface {
  name = 'SendClaims1795690000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "send_claims" ("event_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "holder" character varying(200) NOT NULL, "claimed_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_send_claims" PRIMARY KEY ("event_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_send_claims_claimed_at" ON "send_claims" ("claimed_at") `);
    await queryRunner.query(`ALTER TABLE "conversation_events" DROP COLUMN "send_claimed_at"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_events" ADD "send_claimed_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`DROP INDEX "ix_send_claims_claimed_at"`);
    await queryRunner.query(`DROP TABLE "send_claims"`);
  }
}
