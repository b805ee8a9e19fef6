import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recordings' analyses moved to a queue of their own ('call-analysis'). One still unfinished was
 * pushed to 'outbound-ivr', where no worker takes it any more: its outbox row is dispatched again,
 * to the new queue (the old copy fails there as a job without a handler, and stays failed).
 */
export class CallAnalysisQueue1795880007000 implements MigrationInterface {
  name = 'CallAnalysisQueue1795880007000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE outbox_messages SET queue = 'call-analysis', dispatched_at = NULL WHERE job_name = 'outbound-ivr.analyse-call' AND queue = 'outbound-ivr' AND completed_at IS NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE outbox_messages SET queue = 'outbound-ivr', dispatched_at = NULL WHERE job_name = 'outbound-ivr.analyse-call' AND queue = 'call-analysis' AND completed_at IS NULL`,
    );
  }
}
