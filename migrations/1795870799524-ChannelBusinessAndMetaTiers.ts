import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The number's tiers from Meta and one messaging limit per business (API.md §14): a channel's
 * business portfolio id, and on its tiers who set them last (rows written before were all set by
 * operators, hence the default) and the quality Meta last reported. Adding them rewrites no row
 * (a constant default is stored once in the catalog).
 */
export class ChannelBusinessAndMetaTiers1795870799524 implements MigrationInterface {
  name = 'ChannelBusinessAndMetaTiers1795870799524';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channels" ADD "business_id" character varying(100)`);
    await queryRunner.query(`ALTER TABLE "channel_limits" ADD "set_by" character varying(20) NOT NULL DEFAULT 'Operator'`);
    await queryRunner.query(`ALTER TABLE "channel_limits" ADD "quality_rating" character varying(20)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channel_limits" DROP COLUMN "quality_rating"`);
    await queryRunner.query(`ALTER TABLE "channel_limits" DROP COLUMN "set_by"`);
    await queryRunner.query(`ALTER TABLE "channels" DROP COLUMN "business_id"`);
  }
}
