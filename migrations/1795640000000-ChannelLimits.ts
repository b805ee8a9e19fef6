import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The send governor's tiers per channel (API.md §13); a channel without a row has the defaults. */
export class ChannelLimits1795640000000 implements MigrationInterface {
  name = 'ChannelLimits1795640000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "channel_limits" ("channel_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "throughput_per_second" integer NOT NULL, "messaging_limit" integer, "calls_per_second" integer NOT NULL, "concurrent_calls" integer NOT NULL, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_channel_limits" PRIMARY KEY ("channel_id"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "channel_limits"`);
  }
}
