import { MigrationInterface, QueryRunner } from 'typeorm';

export class OutboundIvrFlows1795233363940 implements MigrationInterface {
  name = 'OutboundIvrFlows1795233363940';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "outbound_ivr_flows" ("id" uuid NOT NULL, "workspace_id" uuid NOT NULL, "name" character varying(200) NOT NULL, "description" character varying(1000), "version" integer NOT NULL, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_modification_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "deletion_time" TIMESTAMP WITH TIME ZONE, CONSTRAINT "PK_d170030274fdcd2b8759abd77ee" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_c25af824641e5cd9f7c7c46d58" ON "outbound_ivr_flows"  ("workspace_id", "creation_time") `);
    await queryRunner.query(
      `CREATE TABLE "outbound_ivr_flow_versions" ("workspace_id" uuid NOT NULL, "flow_id" uuid NOT NULL, "version" integer NOT NULL, "definition" jsonb NOT NULL, "creation_time" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_670383e774964234b9995e12093" PRIMARY KEY ("workspace_id", "flow_id", "version"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "outbound_ivr_flow_versions" ADD CONSTRAINT "FK_e81150d2f13a60d6c697f6372ad" FOREIGN KEY ("flow_id") REFERENCES "outbound_ivr_flows"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbound_ivr_flow_versions" DROP CONSTRAINT "FK_e81150d2f13a60d6c697f6372ad"`);
    await queryRunner.query(`DROP TABLE "outbound_ivr_flow_versions"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_c25af824641e5cd9f7c7c46d58"`);
    await queryRunner.query(`DROP TABLE "outbound_ivr_flows"`);
  }
}
