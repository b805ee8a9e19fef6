import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MediaPathNotConnected, MediaThreadLost } from '../../src/voice/webrtc/media-path.errors.js';
import { MediaThread } from '../../src/voice/webrtc/media-thread.js';
import type { PacingReport } from '../../src/voice/webrtc/packet-pacer.js';
import { pcmFromWav, type PcmAudio } from '../../src/voice/webrtc/pcm-audio.js';
import { WebRtcMediaTransport } from '../../src/voice/webrtc/webrtc-media-transport.js';
import { waitFor } from '../support/fixtures.js';
import { FarEndPeer } from '../support/webrtc-far-end.js';
import { correlation, decode, envelope, promptWav, RATE, rms } from '../support/prompt-audio.js';

const LOCAL = { hostAddresses: ['127.0.0.1'], onlyLocalAddresses: ['127.0.0.1'] };

describe('WebRTC media transport: a real peer on 127.0.0.1 as Meta’s edge', () => {
  const cleanup: Array<() => Promise<void>> = [];
  after(async () => {
    for (const close of cleanup) await close();
  });

  it('answers the offer, connects over ICE + DTLS-SRTP, plays the prompt as paced Opus, and reports the keys pressed', async () => {
    const far = await FarEndPeer.offer();
    cleanup.push(() => far.close());
    const transport = await WebRtcMediaTransport.answer(far.offerSdp, { ...LOCAL, connectTimeoutMs: 10_000 });
    cleanup.push(() => transport.close());
    assert.match(transport.localSdp, /a=rtpmap:111 opus\/48000\/2/i);
    assert.match(transport.localSdp, /a=rtpmap:126 telephone-event\/8000/i);
    assert.match(transport.localSdp, /a=setup:active/, 'the answer takes the DTLS client role, as Meta’s actpass offer allows');
    await far.acceptAnswer(transport.localSdp);
    await Promise.all([transport.connected(), far.connected()]);
    assert.match(far.selectedPair() ?? '', /^127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+$/);

    const prompt = pcmFromWav(promptWav());
    const startedAt = performance.now();
    const report = await transport.play(prompt);
    const playedMs = performance.now() - startedAt;
    const expectedPackets = Math.ceil(prompt.samples.length / (RATE / 50));
    assert.equal(report.packets, expectedPackets);
    // The first packet leaves at once, not a slot later (the issue allows 500 ms from ACCEPTED; a busy machine adds some).
    assert.ok(report.firstPacketAfterMs < 100, `first packet ${report.firstPacketAfterMs} ms after play()`);
    // Paced in real time: 75 packets of 20 ms take about 1.48 s from the first to the last, not a burst.
    assert.ok(playedMs >= (expectedPackets - 1) * 20 - 5, `played in ${playedMs} ms`);

    await waitFor(async () => far.packetsOf('audio/opus').length >= expectedPackets, 5000, 'every Opus packet at the far end');
    const packets = far.packetsOf('audio/opus');
    assert.equal(packets.length, expectedPackets);
    // Timestamps on Opus's 48 kHz clock, 960 a packet, and the arrivals spread over the prompt's duration.
    assert.equal((packets.at(-1)!.timestamp - packets[0].timestamp) >>> 0, (expectedPackets - 1) * 960);
    assert.ok(packets.at(-1)!.at - packets[0].at >= (expectedPackets - 1) * 20 - 30);

    const heard = decode(packets.map((p) => p.payload));
    const durationMs = (heard.length / RATE) * 1000;
    const promptMs = (prompt.samples.length / RATE) * 1000;
    assert.ok(Math.abs(durationMs - promptMs) <= 20, `decoded ${durationMs} ms of a ${promptMs} ms prompt`);
    const energyRatio = rms(heard) / rms(prompt.samples);
    assert.ok(energyRatio > 0.8 && energyRatio < 1.2, `decoded RMS / prompt RMS = ${energyRatio.toFixed(3)}`);
    const shape = correlation(envelope(heard), envelope(prompt.samples));
    assert.ok(shape > 0.9, `loud and silent parts where the prompt has them: envelope correlation ${shape.toFixed(3)}`);

    const keys: string[] = [];
    transport.onKey((key) => keys.push(key));
    await far.pressKey('5', 200);
    await far.pressKey('#', 200);
    await waitFor(async () => keys.length >= 2, 3000, 'both keys reported');
    assert.deepEqual(keys, ['5', '#'], 'each key once, though every event is several packets and its end is sent three times');
    // The media thread's pacing report covers the prompt's packets.
    const reports: PacingReport[] = [];
    const stopListening = MediaThread.onPacingReport((r) => reports.push(r));
    await MediaThread.closePacingWindow();
    stopListening();
    assert.equal(reports.length, 1);
    assert.equal(reports[0].packets, expectedPackets);
    assert.ok(reports[0].p99Ms < 100, `one call's p99 lateness ${reports[0].p99Ms} ms`);
    console.log(
      `prompt: ${report.packets} packets, lateness p50 ${reports[0].p50Ms.toFixed(1)} ms, p99 ${reports[0].p99Ms.toFixed(1)} ms, max ${reports[0].maxMs.toFixed(1)} ms`,
    );
  });

  it('makes an offer for a business-initiated call and plays once the far end answered', async () => {
    const transport = await WebRtcMediaTransport.offer(LOCAL);
    cleanup.push(() => transport.close());
    assert.match(transport.localSdp, /a=setup:actpass/);
    const far = await FarEndPeer.answer(transport.localSdp);
    cleanup.push(() => far.close());
    await transport.acceptAnswer(far.answerSdp);
    await transport.connected();
    const tone: PcmAudio = {
      sampleRate: 16_000,
      samples: Int16Array.from({ length: 16_000 / 5 }, (_, i) => Math.round(5000 * Math.sin(i / 3))),
    };
    const report = await transport.play(tone);
    assert.equal(report.packets, 10);
    await waitFor(async () => far.packetsOf('audio/opus').length >= 10, 5000, 'the ten packets at the far end');
  });

  it('reports a media path that never connects as an error within the time limit, and closes it', async () => {
    const far = await FarEndPeer.offer();
    const transport = await WebRtcMediaTransport.answer(far.offerSdp, { ...LOCAL, connectTimeoutMs: 1500 });
    cleanup.push(() => transport.close());
    // The far end goes away without ever taking the answer: nothing answers the connectivity checks.
    await far.close();
    const startedAt = performance.now();
    const error = await transport.connected().then(
      () => undefined,
      (e: unknown) => e,
    );
    const elapsedMs = performance.now() - startedAt;
    assert.ok(error instanceof MediaPathNotConnected, `rejected with ${String(error)}`);
    assert.ok(['timeout', 'ice-failed'].includes(error.reason));
    assert.ok(elapsedMs <= 1500 + 500, `reported after ${elapsedMs} ms, limit 1500 ms`);
    await assert.rejects(transport.play({ sampleRate: RATE, samples: new Int16Array(160) }), MediaPathNotConnected);
  });

  it('a media thread that stops mid-prompt ends the call: play() and onLost report MediaThreadLost; the next call gets a new thread', async () => {
    const far = await FarEndPeer.offer();
    cleanup.push(() => far.close());
    const transport = await WebRtcMediaTransport.answer(far.offerSdp, { ...LOCAL, connectTimeoutMs: 10_000 });
    await far.acceptAnswer(transport.localSdp);
    await transport.connected();
    const lost: Error[] = [];
    transport.onLost((error) => lost.push(error));
    // Its outcome is taken at once: the rejection comes while the thread is being stopped.
    const playing = transport.play({ sampleRate: RATE, samples: new Int16Array(RATE * 5) }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await waitFor(async () => far.packetsOf('audio/opus').length >= 5, 5000, 'the prompt under way');
    await MediaThread.stop();
    assert.ok((await playing) instanceof MediaThreadLost, 'the prompt under way failed with the thread');
    assert.equal(lost.length, 1);
    assert.ok(lost[0] instanceof MediaThreadLost, String(lost[0]));
    await assert.rejects(transport.play({ sampleRate: RATE, samples: new Int16Array(160) }), MediaThreadLost);

    const next = await WebRtcMediaTransport.offer(LOCAL);
    cleanup.push(() => next.close());
    const nextFar = await FarEndPeer.answer(next.localSdp);
    cleanup.push(() => nextFar.close());
    await next.acceptAnswer(nextFar.answerSdp);
    await next.connected();
    assert.equal((await next.play({ sampleRate: RATE, samples: new Int16Array(RATE / 5) })).packets, 10);
  });
});
