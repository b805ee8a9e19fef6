import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EspeakThread } from '../../src/speech/espeak-thread.js';

describe('eSpeak NG thread: time limits', () => {
  const dir = mkdtempSync(join(tmpdir(), 'espeak-'));
  const text = 'Your appointment is confirmed for tomorrow at ten in the morning. Press one to confirm.';
  const voice = 'en-us+f3';
  /** A limit that a fresh thread's start plus one request fits in with room to spare. */
  let limitMs = 0;
  let singleMs = 0;

  before(async () => {
    const probe = new EspeakThread();
    let t0 = Date.now();
    await probe.speak(text, voice, join(dir, 'cold.wav'));
    const coldMs = Date.now() - t0;
    // The fastest of a few warm runs: a slow one (a busy machine) would make the queue below too short.
    singleMs = Infinity;
    for (let i = 0; i < 3; i++) {
      t0 = Date.now();
      await probe.speak(text, voice, join(dir, `warm${i}.wav`));
      singleMs = Math.min(singleMs, Math.max(Date.now() - t0, 1));
    }
    await probe.stop();
    limitMs = Math.max(coldMs * 2, 300);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('times each request from when the thread starts on it, not from when it was queued', async () => {
    const thread = new EspeakThread(limitMs);
    const count = Math.min(Math.ceil((limitMs * 3) / singleMs) + 2, 400);
    const files = Array.from({ length: count }, (_, i) => join(dir, `q${i}.wav`));
    const queuedAt = Date.now();
    await Promise.all(files.map((file) => thread.speak(text, voice, file)));
    const totalMs = Date.now() - queuedAt;
    await thread.stop();
    for (const file of files) assert.ok(statSync(file).size > 1000, file);
    assert.ok(
      totalMs > limitMs,
      `${count} queued requests took ${totalMs} ms, more than one request's limit of ${limitMs} ms, and none timed out`,
    );
  });

  it('fails only the request that overran, and serves the ones behind it with a new thread', async () => {
    const thread = new EspeakThread(limitMs);
    const long = text.repeat(Math.ceil((limitMs * 20) / singleMs));
    const slow = thread.speak(long, voice, join(dir, 'slow.wav'));
    const behind = thread.speak(text, voice, join(dir, 'behind.wav'));
    await assert.rejects(slow, new RegExp(`took longer than ${limitMs} ms`));
    await behind;
    assert.ok(statSync(join(dir, 'behind.wav')).size > 1000);
    await thread.stop();
  });
});
