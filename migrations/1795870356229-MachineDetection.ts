import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Answering-machine detection (API.md §14): what an outbound IVR call does when a machine answers,
 * its voicemail prompt, and who answered as the provider reported it. Old rows read as Off.
 */
export class MachineDetection1795870356229 implements MigrationInterface {
  name = 'MachineDetection1795870356229';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "machine_detection" character varying(20) NOT NULL DEFAULT 'Off'`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "voicemail_audio_file_url" character varying(2048)`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "voicemail_tts_text" text`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "answered_by" character varying(30)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "answered_by"`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "voicemail_tts_text"`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "voicemail_audio_file_url"`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "machine_detection"`);
  }
}
