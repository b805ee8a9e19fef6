import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppConfig } from '../../src/config/app-config.js';
import { validateEnv } from '../../src/config/env.schema.js';
import { Ffmpeg } from '../../src/media/ffmpeg.js';
import { waitFor } from '../support/fixtures.js';

const config = (env: Record<string, string>) => new AppConfig(validateEnv({ JWT_SECRET: 'x'.repeat(32), ...env }));
/** 2,000 s of a generated tone (about 0.6 s of work, so the first run is still going when polled) decoded to nowhere: real ffmpeg work, no input file. */
const TONE = ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=2000', '-f', 'null', '-'];

describe('ffmpeg runs', () => {
  it('run at most FFMPEG_MAX_CONCURRENCY at once; the others wait their turn and all finish', async () => {
    const ffmpeg = new Ffmpeg(config({ FFMPEG_MAX_CONCURRENCY: '1' }));
    const runs = [ffmpeg.run(TONE), ffmpeg.run(TONE), ffmpeg.run(TONE)];
    // The runs reach the limiter once the binary's path is resolved: how soon depends on the machine's load.
    await waitFor(async () => ffmpeg.waiting === 2, 10_000, 'one run going and two waiting');
    const logs = await Promise.all(runs);
    assert.equal(ffmpeg.waiting, 0);
    for (const log of logs) assert.match(log, /sine/);
  });

  it('default to the cores this process may use', () => {
    assert.ok(config({}).media.ffmpegMaxConcurrency >= 1);
    assert.equal(config({ FFMPEG_MAX_CONCURRENCY: '3' }).media.ffmpegMaxConcurrency, 3);
    assert.throws(() => config({ FFMPEG_MAX_CONCURRENCY: '0' }), /FFMPEG_MAX_CONCURRENCY/);
  });
});
