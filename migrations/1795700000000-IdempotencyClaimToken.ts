import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An `Idempotency-Key`'s in-flight record names the request that claimed it (`claim_token`), and
 * the writes that store its response match that name. A request presumed dead after 60 s in flight
 * may have its key claimed again; if it was only slow, its own writes then find another request's
 * claim, store nothing, and its change is rolled back (`idempotency_claim_held` raises in the
 * one-statement paths), so two requests under one key never both commit. Records claimed before
 * this migration have no token; only a request that spans the upgrade can hold one.
 */
export class IdempotencyClaimToken1795700000000 implements MigrationInterface {
  name = 'IdempotencyClaimToken1795700000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "idempotency_records" ADD "claim_token" uuid`);
    await queryRunner.query(`
      CREATE FUNCTION idempotency_claim_held(held boolean) RETURNS boolean LANGUAGE plpgsql AS $$
      BEGIN
        IF NOT held THEN
          RAISE EXCEPTION 'the Idempotency-Key was claimed again by another request' USING ERRCODE = 'MSI01';
        END IF;
        RETURN true;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION idempotency_claim_held(boolean)`);
    await queryRunner.query(`ALTER TABLE "idempotency_records" DROP COLUMN "claim_token"`);
  }
}
