import { MigrationInterface, QueryRunner } from 'typeorm';

export class MediaFiles1795233564316 implements MigrationInterface {
  name = 'MediaFiles1795233564316';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "media_files" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "key" character varying(64) NOT NULL, "file_name" character varying(255) NOT NULL, "content_type" character varying(100) NOT NULL, "size" bigint NOT NULL, "media_type" character varying(16) NOT NULL, "duration_ms" integer, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_93b4da6741cd150e76f9ac035d8" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_a1092d459371530ce0c10c2089" ON "media_files"  ("key") `);
    await queryRunner.query(`CREATE INDEX "IDX_a4bd1415e9cfbece33227f8dfd" ON "media_files"  ("workspace_id", "creation_time") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_a4bd1415e9cfbece33227f8dfd"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_a1092d459371530ce0c10c2089"`);
    await queryRunner.query(`DROP TABLE "media_files"`);
  }
}
