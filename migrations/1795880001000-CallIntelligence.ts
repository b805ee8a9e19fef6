import { MigrationInterface, QueryRunner } from 'typeorm';

/** A workspace's call intelligence providers (API.md §16). */
export class CallIntelligence1795880001000 implements MigrationInterface {
  name = 'CallIntelligence1795880001000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "call_intelligence_settings" ("workspace_id" uuid NOT NULL, "transcription" jsonb NOT NULL, "summary" jsonb NOT NULL, "evaluation_criteria" jsonb NOT NULL, "transcription_api_key_sealed" text, "summary_api_key_sealed" text, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_call_intelligence_settings" PRIMARY KEY ("workspace_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "call_intelligence_settings"`);
  }
}
