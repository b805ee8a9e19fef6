import { MigrationInterface, QueryRunner } from 'typeorm';

export class ConversationsAndTags1795230326921 implements MigrationInterface {
  name = 'ConversationsAndTags1795230326921';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "conversations" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "contact_id" uuid NOT NULL, "status" smallint NOT NULL DEFAULT '1', "assignee_user_id" uuid, "assigned_ai_agent_id" uuid, "sentiment" character varying(20), "last_activity_at" TIMESTAMP WITH TIME ZONE NOT NULL, "last_event_source_type" smallint, "last_event_direction" smallint, "last_event_status" character varying(30), "last_event_preview_body" character varying(200), "last_event_occurred_at" TIMESTAMP WITH TIME ZONE, "last_events_count" integer NOT NULL DEFAULT '0', "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_ee34f4f7ced4ec8681f26bf04ef" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_f075a67c76462d622663fb1c19" ON "conversations"  ("workspace_id", "contact_id") `);
    await queryRunner.query(
      `CREATE INDEX "IDX_41cdd3f42b05f29c795962ea0b" ON "conversations"  ("workspace_id", "channel_id", "assignee_user_id", "last_activity_at") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_926cc3dafbffabbc5cf511b548" ON "conversations"  ("workspace_id", "channel_id", "last_activity_at") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "ux_conversations_open" ON "conversations"  ("workspace_id", "channel_id", "contact_id") WHERE status = 1`,
    );
    await queryRunner.query(
      `CREATE TABLE "conversation_events" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "conversation_id" uuid NOT NULL, "contact_id" uuid NOT NULL, "channel_id" uuid NOT NULL, "source_type" smallint NOT NULL, "source_id" character varying(200), "direction" smallint NOT NULL, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL, "status" character varying(30), "error_code" character varying(100), "failure_reason" character varying(1000), "is_ai" boolean NOT NULL DEFAULT false, "attachment" jsonb, "owner_user_id" uuid, "ai_agent_id" uuid, "duration_or_size" character varying(30), "ringing_duration" character varying(30), "body" text, "handler_name" character varying(200), "ai_summary" jsonb, "reply_to" jsonb, "internal_thread" jsonb, "location" jsonb, "assignation" jsonb, CONSTRAINT "PK_d69d1aeac5bf8d33983a582653d" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_739eb201d2f489906b5abc80d5" ON "conversation_events"  ("workspace_id", "source_type", "source_id") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_aabe75f982c093be364d718605" ON "conversation_events"  ("workspace_id", "conversation_id", "creation_time") `,
    );
    await queryRunner.query(
      `CREATE TABLE "tags" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(100) NOT NULL, "normalized_name" character varying(100) NOT NULL, "icon" character varying(2048), "description" character varying(1000), "is_pinned" boolean NOT NULL DEFAULT false, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e7dc17249a1148a1970748eda99" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_8bb45e7f6dae622f21ae56e553" ON "tags"  ("workspace_id", "creation_time") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_2d925ea3f4f2b1ca592bf1e83c" ON "tags"  ("workspace_id", "normalized_name") `);
    await queryRunner.query(
      `CREATE TABLE "conversation_tags" ("conversation_id" uuid NOT NULL, "tag_id" uuid NOT NULL, "workspace_id" uuid NOT NULL, CONSTRAINT "PK_d6a23438eb19986e6047c555ba3" PRIMARY KEY ("conversation_id", "tag_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_f9a70865e9925e9472df080af9" ON "conversation_tags"  ("workspace_id", "tag_id") `);
    await queryRunner.query(
      `ALTER TABLE "conversations" ADD CONSTRAINT "FK_3e605129623b629ddd0583740db" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "conversation_events" ADD CONSTRAINT "FK_ba970f7c2f1f3d96bcfbda1a998" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "conversation_tags" ADD CONSTRAINT "FK_3c627a7d45d66262ae48c1584ae" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "conversation_tags" ADD CONSTRAINT "FK_9e50bf0c55a7252a73fb03f397f" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE RESTRICT ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "conversation_tags" DROP CONSTRAINT "FK_9e50bf0c55a7252a73fb03f397f"`);
    await queryRunner.query(`ALTER TABLE "conversation_tags" DROP CONSTRAINT "FK_3c627a7d45d66262ae48c1584ae"`);
    await queryRunner.query(`ALTER TABLE "conversation_events" DROP CONSTRAINT "FK_ba970f7c2f1f3d96bcfbda1a998"`);
    await queryRunner.query(`ALTER TABLE "conversations" DROP CONSTRAINT "FK_3e605129623b629ddd0583740db"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_f9a70865e9925e9472df080af9"`);
    await queryRunner.query(`DROP TABLE "conversation_tags"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_2d925ea3f4f2b1ca592bf1e83c"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_8bb45e7f6dae622f21ae56e553"`);
    await queryRunner.query(`DROP TABLE "tags"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_aabe75f982c093be364d718605"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_739eb201d2f489906b5abc80d5"`);
    await queryRunner.query(`DROP TABLE "conversation_events"`);
    await queryRunner.query(`DROP INDEX "public"."ux_conversations_open"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_926cc3dafbffabbc5cf511b548"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_41cdd3f42b05f29c795962ea0b"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_f075a67c76462d622663fb1c19"`);
    await queryRunner.query(`DROP TABLE "conversations"`);
  }
}
