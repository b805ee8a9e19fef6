import { MigrationInterface, QueryRunner } from 'typeorm';

export class WhatsAppTemplates1795231216160 implements MigrationInterface {
  name = 'WhatsAppTemplates1795231216160';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "whatsapp_templates" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "name" character varying(512) NOT NULL, "language" character varying(20) NOT NULL, "category" character varying(30) NOT NULL, "status" character varying(30) NOT NULL, "components" jsonb NOT NULL, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_73154f2b6ebc019bc3461ee14eb" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_b31dc08001ddc51d150e8e0521" ON "whatsapp_templates"  ("workspace_id", "channel_id", "name", "language") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_b31dc08001ddc51d150e8e0521"`);
    await queryRunner.query(`DROP TABLE "whatsapp_templates"`);
  }
}
