import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LatenessHistogram } from '../../src/voice/webrtc/lateness-histogram.js';
import { closePacingWindow, onPacingReport, pacePackets, type PacingReport } from '../../src/voice/webrtc/packet-pacer.js';

/** `count` one-byte packets, then the end. */
function packets(count: number): () => Buffer | undefined {
  let made = 0;
  return () => (made < count ? Buffer.from([made++]) : undefined);
}

describe('pacePackets: packets on a 20 ms grid from one process-wide clock', () => {
  it('sends each packet on its slot, in order, and records how late each left', async () => {
    const sentAt: number[] = [];
    const indexes: number[] = [];
    const lateness = new LatenessHistogram();
    const started = performance.now();
    const paced = pacePackets(
      packets(10),
      (_payload, index) => {
        indexes.push(index);
        sentAt.push(performance.now() - started);
      },
      20,
      [lateness],
    );
    const result = await paced.done;
    assert.deepEqual(result, { packets: 10, stopped: false });
    assert.deepEqual(indexes, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    sentAt.forEach((at, k) => assert.ok(at >= k * 20 - 1, `packet ${k} left at ${at.toFixed(1)} ms, before its slot`));
    assert.equal(lateness.count, 10);
    assert.ok(sentAt[9] < 9 * 20 + 50, `the last packet left at ${sentAt[9].toFixed(1)} ms`);
  });

  it('stop() ends a prompt between packets and reports how many left', async () => {
    const paced = pacePackets(packets(100), () => undefined, 20, []);
    setTimeout(() => paced.stop(), 70);
    const result = await paced.done;
    assert.equal(result.stopped, true);
    assert.ok(result.packets >= 3 && result.packets <= 6, `${result.packets} packets before stop at 70 ms`);
  });

  it('a prompt whose send throws ends alone, with the error; the others keep their packets', async () => {
    const failure = new Error('the sender is closed');
    const broken = pacePackets(
      packets(20),
      (_payload, index) => {
        if (index === 3) throw failure;
      },
      20,
      [],
    );
    let healthySent = 0;
    const healthy = pacePackets(packets(10), () => healthySent++, 20, []);
    await assert.rejects(broken.done, (error) => error === failure);
    assert.deepEqual(await healthy.done, { packets: 10, stopped: false });
    assert.equal(healthySent, 10);
    // The clock still runs for a prompt started after the failure.
    assert.deepEqual(await pacePackets(packets(3), () => undefined, 20, []).done, { packets: 3, stopped: false });
  });

  it('a prompt whose first frame cannot be made rejects at once', async () => {
    const paced = pacePackets(
      () => {
        throw new Error('no such frame');
      },
      () => undefined,
      20,
      [],
    );
    await assert.rejects(paced.done, /no such frame/);
  });

  it('reports the process-wide window: prompts, packets and lateness quantiles', async () => {
    closePacingWindow(); // whatever the tests above left in the window
    const reports: PacingReport[] = [];
    const stop = onPacingReport((report) => reports.push(report));
    try {
      await Promise.all([pacePackets(packets(5), () => undefined, 20, []).done, pacePackets(packets(7), () => undefined, 20, []).done]);
      assert.equal(reports.length, 0, 'a window reports when it closes, not per packet');
      closePacingWindow();
      assert.equal(reports.length, 1);
      const [report] = reports;
      assert.equal(report.prompts, 2);
      assert.equal(report.packets, 12);
      assert.ok(report.p50Ms <= report.p99Ms && report.maxMs < 200, JSON.stringify(report));
      assert.ok(report.to >= report.from && report.to - report.from >= 100, JSON.stringify(report));
      closePacingWindow();
      assert.equal(reports.length, 1, 'an empty window says nothing');
    } finally {
      stop();
    }
  });
});
