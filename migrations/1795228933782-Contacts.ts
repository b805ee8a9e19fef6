import { MigrationInterface, QueryRunner } from 'typeorm';

export class Contacts1795228933782 implements MigrationInterface {
  name = 'Contacts1795228933782';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "contact_property_definitions" ("creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "creator_id" uuid, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_modifier_id" uuid, "id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(100) NOT NULL, "normalized_name" character varying(100) NOT NULL, "key" character varying(100) NOT NULL, "type" smallint NOT NULL, "is_required" boolean NOT NULL DEFAULT false, "select_options" jsonb NOT NULL DEFAULT '[]', CONSTRAINT "PK_47940a643693020e875b611342f" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_98ebc2844da3367ab134c4a209" ON "contact_property_definitions"  ("workspace_id", "creation_time") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_9416ce39fffc6d41cb838356b9" ON "contact_property_definitions"  ("workspace_id", "key") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_a145050ec1423d73a0abc2c5eb" ON "contact_property_definitions"  ("workspace_id", "normalized_name") `,
    );
    await queryRunner.query(
      `CREATE TABLE "contacts" ("creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "creator_id" uuid, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_modifier_id" uuid, "id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "phone_number" character varying(20) NOT NULL, "contact_type" smallint NOT NULL DEFAULT '1', "email" character varying(320), "company" character varying(200), "position" character varying(200), "custom_fields" jsonb, CONSTRAINT "PK_b99cd40cfd66a99f1571f4f72e6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_6ab15b71b8d39c0230fafe08ce" ON "contacts"  ("workspace_id", "last_modification_time") `);
    await queryRunner.query(`CREATE INDEX "IDX_d60cf92245ef8ce87c28fb0533" ON "contacts"  ("workspace_id", "name") `);
    await queryRunner.query(`CREATE INDEX "IDX_84fe00d030598e2fec0f96b452" ON "contacts"  ("workspace_id", "creation_time") `);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_3dac0887f14bdb2937894f5db5" ON "contacts"  ("workspace_id", "phone_number") `);
    await queryRunner.query(
      `CREATE TABLE "contact_history" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "contact_id" uuid NOT NULL, "property_name" character varying(100) NOT NULL, "property_definition_id" uuid, "old_value" text, "new_value" text, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "creator_id" uuid, CONSTRAINT "PK_68d75ef80ec536aee6b570ebaa6" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_857f9839bf6cfac15739bda0d3" ON "contact_history"  ("workspace_id", "contact_id", "creation_time") `,
    );
    await queryRunner.query(
      `CREATE TABLE "contact_notes" ("creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "creator_id" uuid, "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_modifier_id" uuid, "id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "contact_id" uuid NOT NULL, "text" text NOT NULL, "creator_name" character varying(200), CONSTRAINT "PK_263505a5e2d3aa2e4dde9a6bd04" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_46871281fe3f1c89f024f334f1" ON "contact_notes"  ("workspace_id", "contact_id", "creation_time") `,
    );
    await queryRunner.query(
      `CREATE TABLE "contact_property_values" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "contact_id" uuid NOT NULL, "property_definition_id" uuid NOT NULL, "text_value" text, "number_value" numeric, "date_value" TIMESTAMP WITH TIME ZONE, "select_value" character varying(100), CONSTRAINT "PK_4aa7e98bb42d958d4e933b84497" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_0f69d6c150b6ff9eec67c648a6" ON "contact_property_values"  ("workspace_id", "property_definition_id", "date_value") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_b861d9e638f7c83f271eef1e00" ON "contact_property_values"  ("workspace_id", "property_definition_id", "number_value") `,
    );
    await queryRunner.query(
      `CREATE INDEX "IDX_b253efcba9bce55590e67803e9" ON "contact_property_values"  ("workspace_id", "property_definition_id", "select_value") `,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "IDX_b5169d8ecf42535ee356419cc0" ON "contact_property_values"  ("contact_id", "property_definition_id") `,
    );
    await queryRunner.query(
      `ALTER TABLE "contact_history" ADD CONSTRAINT "FK_b85eaa6d13a8452394b43ce74bf" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "contact_notes" ADD CONSTRAINT "FK_073b47f6c912ee4b307c2aba3cb" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "contact_property_values" ADD CONSTRAINT "FK_a34210c546142dfefbc8be4aa93" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "contact_property_values" ADD CONSTRAINT "FK_a155720c763c204d4f48bf561b0" FOREIGN KEY ("property_definition_id") REFERENCES "contact_property_definitions"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "contact_property_values" DROP CONSTRAINT "FK_a155720c763c204d4f48bf561b0"`);
    await queryRunner.query(`ALTER TABLE "contact_property_values" DROP CONSTRAINT "FK_a34210c546142dfefbc8be4aa93"`);
    await queryRunner.query(`ALTER TABLE "contact_notes" DROP CONSTRAINT "FK_073b47f6c912ee4b307c2aba3cb"`);
    await queryRunner.query(`ALTER TABLE "contact_history" DROP CONSTRAINT "FK_b85eaa6d13a8452394b43ce74bf"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b5169d8ecf42535ee356419cc0"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b253efcba9bce55590e67803e9"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_b861d9e638f7c83f271eef1e00"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_0f69d6c150b6ff9eec67c648a6"`);
    await queryRunner.query(`DROP TABLE "contact_property_values"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_46871281fe3f1c89f024f334f1"`);
    await queryRunner.query(`DROP TABLE "contact_notes"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_857f9839bf6cfac15739bda0d3"`);
    await queryRunner.query(`DROP TABLE "contact_history"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_3dac0887f14bdb2937894f5db5"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_84fe00d030598e2fec0f96b452"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_d60cf92245ef8ce87c28fb0533"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_6ab15b71b8d39c0230fafe08ce"`);
    await queryRunner.query(`DROP TABLE "contacts"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_a145050ec1423d73a0abc2c5eb"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_9416ce39fffc6d41cb838356b9"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_98ebc2844da3367ab134c4a209"`);
    await queryRunner.query(`DROP TABLE "contact_property_definitions"`);
  }
}
