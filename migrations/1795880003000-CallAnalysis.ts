import { MigrationInterface, QueryRunner } from 'typeorm';

/** A recorded call's analysis (API.md §16): its transcript, summary, sentiment and criteria, or why there is none. */
export class CallAnalysis1795880003000 implements MigrationInterface {
  name = 'CallAnalysis1795880003000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "outbound_ivr_requests" ADD "analysis_status" character varying(20), ADD "analysis_error" character varying(1000), ADD "transcript" jsonb, ADD "summary" text, ADD "sentiment" character varying(10), ADD "evaluation_criteria_result" jsonb, ADD "analysed_at" TIMESTAMP WITH TIME ZONE`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "outbound_ivr_requests" DROP COLUMN "analysed_at", DROP COLUMN "evaluation_criteria_result", DROP COLUMN "sentiment", DROP COLUMN "summary", DROP COLUMN "transcript", DROP COLUMN "analysis_error", DROP COLUMN "analysis_status"`,
    );
  }
}
