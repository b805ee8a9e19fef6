import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The provider's ids of uploaded files per channel (media sends by `mediaId`), kept until Meta's 30-day expiry. */
export class WhatsAppMediaUploads1795250000000 implements MigrationInterface {
  name = 'WhatsAppMediaUploads1795250000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "whatsapp_media_uploads" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "media_file_id" uuid NOT NULL, "provider_media_id" character varying(200) NOT NULL, "uploaded_at" TIMESTAMP WITH TIME ZONE NOT NULL, "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_35780f140a2cf947b6e39f26814" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_8fa215eaa96b03a183366b2db2" ON "whatsapp_media_uploads" ("workspace_id", "channel_id", "media_file_id") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_8fa215eaa96b03a183366b2db2"`);
    await queryRunner.query(`DROP TABLE "whatsapp_media_uploads"`);
  }
}
