import { MigrationInterface, QueryRunner } from 'typeorm';

export class OutboundIvr1795233697260 implements MigrationInterface {
  name = 'OutboundIvr1795233697260';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "inbound_calls" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "provider_call_id" character varying(100) NOT NULL, "caller_number" character varying(32) NOT NULL, "status" smallint NOT NULL, "duration_seconds" integer NOT NULL, "pickup_time" TIMESTAMP WITH TIME ZONE, "hangup_time" TIMESTAMP WITH TIME ZONE NOT NULL, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_345b5dd6e75f65fbdb4ab7e3805" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_inbound_calls_provider_call_id" ON "inbound_calls"  ("workspace_id", "provider_call_id") `,
    );
    await queryRunner.query(`CREATE INDEX "IDX_ee45abfe58584269ca4747163b" ON "inbound_calls"  ("workspace_id", "creation_time") `);
    await queryRunner.query(
      `CREATE TABLE "outbound_ivr_requests" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "external_id" character varying(256), "destination_number" character varying(20) NOT NULL, "audio_file_url" character varying(2048), "tts_text" text, "tts_voice" smallint NOT NULL, "audio_type" smallint, "welcome_message_file_url" character varying(2048), "success_message_file_url" character varying(2048), "failed_message_file_url" character varying(2048), "options" jsonb NOT NULL, "webhook_url" character varying(2048) NOT NULL, "max_audio_retries" smallint NOT NULL, "input_timeout_ms" integer NOT NULL, "digit_timeout_ms" integer NOT NULL, "flow_id" uuid, "flow_version" integer, "status" smallint NOT NULL DEFAULT '0', "result" smallint NOT NULL DEFAULT '0', "pressed_digit" character varying(1), "initiated_at" TIMESTAMP WITH TIME ZONE, "ringing_at" TIMESTAMP WITH TIME ZONE, "answered_at" TIMESTAMP WITH TIME ZONE, "completed_at" TIMESTAMP WITH TIME ZONE, "call_duration_seconds" integer, "call_id" character varying(100), "error_message" character varying(1000), "hangup_cause" character varying(100), "answers" jsonb NOT NULL DEFAULT '[]', "placement_started_at" TIMESTAMP WITH TIME ZONE, "script" jsonb, "dialog" jsonb, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "PK_ddc0a9ce32e31074a66397acf4a" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_outbound_ivr_call_id" ON "outbound_ivr_requests"  ("call_id") WHERE call_id IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_outbound_ivr_external_id" ON "outbound_ivr_requests"  ("workspace_id", "external_id") WHERE external_id IS NOT NULL`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_99364bddab9b54358e27545b6d" ON "outbound_ivr_requests"  ("workspace_id", "creation_time") `);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_99364bddab9b54358e27545b6d"`);
    await queryRunner.query(`DROP INDEX "public"."ux_outbound_ivr_external_id"`);
    await queryRunner.query(`DROP INDEX "public"."ux_outbound_ivr_call_id"`);
    await queryRunner.query(`DROP TABLE "outbound_ivr_requests"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_ee45abfe58584269ca4747163b"`);
    await queryRunner.query(`DROP INDEX "public"."ux_inbound_calls_provider_call_id"`);
    await queryRunner.query(`DROP TABLE "inbound_calls"`);
  }
}
