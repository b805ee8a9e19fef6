import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import { MediaThread } from '../../src/voice/webrtc/media-thread.js';
import type { PriorityOutcome } from '../../src/voice/webrtc/thread-priority.js';
import { WebRtcMediaTransport } from '../../src/voice/webrtc/webrtc-media-transport.js';

/** The niceness of each thread of this process (field 19 of /proc/self/task/<id>/stat). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((id) =>
    Number(readFileSync(`/proc/self/task/${id}/stat`, 'utf8').split(') ')[1].split(' ')[16]),
  );
}

describe('the media thread', () => {
  it('takes the niceness it is configured with, alone in its process, and says so', async () => {
    // A positive niceness needs no privilege, so the test runs as any user.
    MediaThread.configure({ niceness: 7 });
    const outcomes: PriorityOutcome[] = [];
    const stop = MediaThread.onPriority((outcome) => outcomes.push(outcome));
    const transport = await WebRtcMediaTransport.offer({ hostAddresses: ['127.0.0.1'], onlyLocalAddresses: ['127.0.0.1'] });
    try {
      assert.deepEqual(outcomes, [{ niceness: 7, applied: true }]);
      const niceness = threadNiceness();
      // Only the media thread: not libuv's pool, which it may have been the first to use.
      assert.equal(niceness.filter((n) => n === 7).length, 1, `threads' niceness: ${niceness.join(', ')}`);
      assert.ok(niceness.includes(getPriority()), 'the main thread keeps its own');
      assert.match(transport.localSdp, /a=rtpmap:111 opus\/48000\/2/i);
    } finally {
      stop();
      await transport.close();
    }
  });
});
