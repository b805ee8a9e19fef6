import { MigrationInterface, QueryRunner } from 'typeorm';

export class WhatsAppSandboxMessages1795231263474 implements MigrationInterface {
  name = 'WhatsAppSandboxMessages1795231263474';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "whatsapp_sandbox_messages" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "provider_message_id" character varying(100) NOT NULL, "request" jsonb NOT NULL, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_24d918d0f3bd3a3afbd396fc61d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_e495340c7474c2f5078bfc1686" ON "whatsapp_sandbox_messages"  ("channel_id", "creation_time") `,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_e495340c7474c2f5078bfc1686"`);
    await queryRunner.query(`DROP TABLE "whatsapp_sandbox_messages"`);
  }
}
