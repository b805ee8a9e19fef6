import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Call recording (API.md §16): whether a call is recorded and its announcement, the stored
 * recording (file, URL, length, when), why it is missing, and a Call Webhook waiting for it;
 * a channel's recording defaults. Old rows read as not recorded.
 */
export class CallRecording1795880000000 implements MigrationInterface {
  name = 'CallRecording1795880000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "record" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recording_announcement_audio_url" character varying(2048)`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recording_announcement_tts_text" text`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recording_sid" character varying(64)`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recording_media_id" uuid`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recording_url" character varying(2048)`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recording_duration_ms" integer`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recorded_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "recording_error" character varying(1000)`);
    await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" ADD "call_webhook_waiting" boolean NOT NULL DEFAULT false`);
    await queryRunner.query(
      `CREATE INDEX "ix_outbound_ivr_recorded_at" ON "outbound_ivr_requests" ("recorded_at") WHERE recording_media_id IS NOT NULL`,
    );
    await queryRunner.query(`ALTER TABLE "channels" ADD "voice_recording" jsonb`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "channels" DROP COLUMN "voice_recording"`);
    await queryRunner.query(`DROP INDEX "ix_outbound_ivr_recorded_at"`);
    for (const column of [
      'call_webhook_waiting',
      'recording_error',
      'recorded_at',
      'recording_duration_ms',
      'recording_url',
      'recording_media_id',
      'recording_sid',
      'recording_announcement_tts_text',
      'recording_announcement_audio_url',
      'record',
    ])
      await queryRunner.query(`ALTER TABLE "outbound_ivr_requests" DROP COLUMN "${column}"`);
  }
}
