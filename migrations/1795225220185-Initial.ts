import { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1795225220185 implements MigrationInterface {
  name = 'Initial1795225220185';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "service_accounts" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "client_id" character varying(64) NOT NULL, "client_secret_hash" text NOT NULL, "revoked_at" TIMESTAMP WITH TIME ZONE, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e2fb216fdc1db94c5e4da7d88fa" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_73f642965eec747ce27e50f8cc" ON "service_accounts"  ("client_id") `);
    await queryRunner.query(`CREATE INDEX "IDX_dade23bd6670626a94dba11877" ON "service_accounts"  ("workspace_id", "creation_time") `);
    await queryRunner.query(
      `CREATE TABLE "channels" ("creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "creator_id" uuid, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_modifier_id" uuid, "id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "type" smallint NOT NULL, "icon" character varying(2048), "phone_number_id" uuid NOT NULL, "phone_number" character varying(20) NOT NULL, "webhook_url" character varying(2048), "post_call_webhook_url" character varying(2048), "whats_app_provider" character varying(20), "whats_app_phone_number_id" character varying(100), "whats_app_waba_id" character varying(100), "whats_app_credentials_sealed" text, "voice_provider" character varying(20), "voice_account_sid" character varying(100), "voice_from_number" character varying(20), "voice_sandbox" jsonb, "voice_credentials_sealed" text, "deletion_time" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_bc603823f3f741359c2339389f9" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_1a90b062e8beb5e6cdbeeeb942" ON "channels"  ("workspace_id", "creation_time") `);
    await queryRunner.query(
      `CREATE TABLE "outbox_messages" ("id" uuid NOT NULL, "workspace_id" uuid, "queue" character varying(100) NOT NULL, "job_name" character varying(100) NOT NULL, "payload" jsonb NOT NULL, "run_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "dispatched_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_0171348f527c64b137e4d4f5b66" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "ix_outbox_messages_pending" ON "outbox_messages"  ("created_at") WHERE dispatched_at IS NULL`);
    await queryRunner.query(
      `CREATE TABLE "workspace_users" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "user_id" uuid NOT NULL, "email" character varying(320) NOT NULL, "name" character varying(200) NOT NULL, "logo_url" character varying(2048), "role" smallint NOT NULL, "is_ai_agent" boolean NOT NULL DEFAULT false, "phone_number" character varying(20), "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_6d52a8e2739982d783279cffe84" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_32ac635a2108dccfd39a000a4e" ON "workspace_users"  ("workspace_id", "user_id") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_4d25e76d34d07ef1dd33dfdcf4" ON "workspace_users"  ("workspace_id", "email") `);
    await queryRunner.query(
      `CREATE TABLE "workspaces" ("id" uuid NOT NULL, "name" character varying(200) NOT NULL, "webhook_secret_sealed" text NOT NULL, "previous_webhook_secret_sealed" text, "previous_webhook_secret_expires_at" TIMESTAMP WITH TIME ZONE, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_098656ae401f3e1a4586f47fd8e" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "idempotency_records" ("workspace_id" uuid NOT NULL, "key" character varying(255) NOT NULL, "request_hash" character varying(64) NOT NULL, "response_status" smallint, "response_body" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_1d598c351c1a684c9cf5bbce822" PRIMARY KEY ("workspace_id", "key"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_b3482fdd761179f433dab212e7" ON "idempotency_records"  ("expires_at") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_b3482fdd761179f433dab212e7"`);
    await queryRunner.query(`DROP TABLE "idempotency_records"`);
    await queryRunner.query(`DROP TABLE "workspaces"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_4d25e76d34d07ef1dd33dfdcf4"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_32ac635a2108dccfd39a000a4e"`);
    await queryRunner.query(`DROP TABLE "workspace_users"`);
    await queryRunner.query(`DROP INDEX "public"."ix_outbox_messages_pending"`);
    await queryRunner.query(`DROP TABLE "outbox_messages"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_1a90b062e8beb5e6cdbeeeb942"`);
    await queryRunner.query(`DROP TABLE "channels"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_dade23bd6670626a94dba11877"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_73f642965eec747ce27e50f8cc"`);
    await queryRunner.query(`DROP TABLE "service_accounts"`);
  }
}
