import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import { parseWavHeader, type WavFormat } from '../../src/media/wav.js';

/**
 * Makes PostgreSQL refuse, for real, every write that puts a recording on a call (a trigger on the
 * test's own database) until `release`: what a database failure between storing a recording's
 * file and recording it on its call looks like.
 */
export async function refuseRecordingWrites(db: DataSource): Promise<{ release(): Promise<void> }> {
  await db.query(`
    CREATE OR REPLACE FUNCTION test_refuse_recording() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.recording_media_id IS NOT NULL THEN RAISE EXCEPTION 'recording writes refused by the test'; END IF;
      RETURN NEW;
    END $$`);
  await db.query(`DROP TRIGGER IF EXISTS test_refuse_recording ON outbound_ivr_requests`);
  await db.query(
    `CREATE TRIGGER test_refuse_recording BEFORE UPDATE ON outbound_ivr_requests FOR EACH ROW EXECUTE FUNCTION test_refuse_recording()`,
  );
  return { release: () => db.query(`DROP TRIGGER IF EXISTS test_refuse_recording ON outbound_ivr_requests`) };
}

/** Stored recordings of the workspace that no call has: files left behind. */
export async function orphanRecordings(db: DataSource, workspaceId: string): Promise<number> {
  const [{ n }] = await db.query<[{ n: number }]>(
    `SELECT count(*)::int AS n FROM media_files f
      WHERE f.workspace_id = $1 AND f.file_name = 'recording.wav'
        AND NOT EXISTS (SELECT 1 FROM outbound_ivr_requests o WHERE o.recording_media_id = f.id)`,
    [workspaceId],
  );
  return n;
}

/**
 * Fetches a call's stored recording and checks it is what every recording is (served as audio/wav,
 * two-channel 8 kHz 16-bit PCM, as long as the record says) and as long as the call, from its answer
 * to its end, within `toleranceMs`.
 */
export async function fetchRecording(
  url: string,
  record: Record<string, any>,
  toleranceMs: number,
): Promise<{ wav: Buffer; format: WavFormat }> {
  const file = await fetch(url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get('content-type'), 'audio/wav');
  const wav = Buffer.from(await file.arrayBuffer());
  const format = parseWavHeader(wav);
  assert.deepEqual([format.audioFormat, format.channels, format.sampleRate, format.bitsPerSample], [1, 2, 8000, 16]);
  assert.equal(format.durationMs, record.recordingDurationMs);
  const callMs = Date.parse(record.completedAt) - Date.parse(record.answeredAt);
  assert.ok(Math.abs(format.durationMs - callMs) < toleranceMs, `recording ${format.durationMs} ms, call ${callMs} ms`);
  return { wav, format };
}
