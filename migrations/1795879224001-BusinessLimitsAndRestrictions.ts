import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One messaging limit per business portfolio (API.md §14): `business_limits` holds the portfolio's
 * limit, which shadows its channels' own. Each portfolio in use starts with the limit of its
 * channel whose tiers changed last (a channel without tiers of its own counts with its provider's
 * default), so no channel's limit changes silently at once beyond that one choice. Meta's
 * restriction of business-initiated messaging is kept apart from the limit (`restriction`,
 * `restriction_ends_at`), so that lifting it brings the limit back.
 */
export class BusinessLimitsAndRestrictions1795879224001 implements MigrationInterface {
  name = 'BusinessLimitsAndRestrictions1795879224001';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "business_limits" ("workspace_id" uuid NOT NULL, "business_id" character varying(100) NOT NULL, "messaging_limit" integer, "set_by" character varying(20) NOT NULL, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_71b6319f326a0552a81ed24851c" PRIMARY KEY ("workspace_id", "business_id"))`,
    );
    await queryRunner.query(`ALTER TABLE "channel_limits" ADD "restriction" character varying(60)`);
    await queryRunner.query(`ALTER TABLE "channel_limits" ADD "restriction_ends_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `INSERT INTO "business_limits" ("workspace_id", "business_id", "messaging_limit", "set_by")
       SELECT DISTINCT ON (c."workspace_id", c."business_id") c."workspace_id", c."business_id",
              CASE WHEN l."channel_id" IS NOT NULL THEN l."messaging_limit" WHEN c."whats_app_provider" = 'cloud-api' THEN 1000 END,
              COALESCE(l."set_by", 'Operator')
         FROM "channels" c LEFT JOIN "channel_limits" l ON l."channel_id" = c."id"
        WHERE c."business_id" IS NOT NULL AND c."deletion_time" IS NULL
        ORDER BY c."workspace_id", c."business_id", l."last_modification_time" DESC NULLS LAST, c."creation_time"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channel_limits" DROP COLUMN "restriction_ends_at"`);
    await queryRunner.query(`ALTER TABLE "channel_limits" DROP COLUMN "restriction"`);
    await queryRunner.query(`DROP TABLE "business_limits"`);
  }
}
