// node spike.mjs <werift|wrtc> <N> [seconds]  ENC=none|evan|opusscript (werift only)
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const [lib, nArg, secArg] = process.argv.slice(2);
const N = Number(nArg);
const SECONDS = Number(secArg ?? 10);
const ENC = process.env.ENC ?? 'none';
const far = fork(new URL('./far.mjs', import.meta.url));
const waiting = new Map();
far.on('message', (m) => {
  const w = waiting.get(m.type + (m.id ?? ''));
  if (w) {
    waiting.delete(m.type + (m.id ?? ''));
    w(m);
  }
});
const ask = (type, extra = {}) =>
  new Promise((r) => {
    waiting.set(type + (extra.id ?? ''), r);
    far.send({ type, ...extra });
  });
// 20 ms of 8 kHz mono: a 440 Hz tone
const pcm8k = (k) => {
  const f = new Int16Array(160);
  for (let i = 0; i < 160; i++) f[i] = Math.round(6000 * Math.sin((2 * Math.PI * 440 * (k * 160 + i)) / 8000));
  return f;
};
let encodeFrame;
if (ENC === 'evan') {
  const { Encoder } = require('@evan/opus');
  encodeFrame = () => {
    const e = new Encoder({ channels: 1, sample_rate: 8000, application: 'voip' });
    return (f) => Buffer.from(e.encode(f));
  };
} else if (ENC === 'opusscript') {
  const O = require('opusscript');
  encodeFrame = () => {
    const e = new O(8000, 1, O.Application.VOIP);
    return (f) => e.encode(Buffer.from(f.buffer), 160);
  };
}
const { Encoder } = require('@evan/opus');
const cacheEnc = new Encoder({ channels: 1, sample_rate: 8000, application: 'voip' });
const cached = Array.from({ length: 50 }, (_, k) => Buffer.from(cacheEnc.encode(pcm8k(k))));
const lateness = [];
let sent = 0;

async function wereiftCall(id, offer) {
  const { RTCPeerConnection, RTCRtpCodecParameters, RtpPacket, RtpHeader } = require('werift');
  const pc = new RTCPeerConnection({
    codecs: {
      audio: [
        new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, payloadType: 111 }),
        new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 8000, channels: 1, payloadType: 126 }),
      ],
    },
    iceUseIpv6: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
  });
  await pc.setRemoteDescription({ type: 'offer', sdp: offer });
  const transceiver = pc.getTransceivers()[0];
  transceiver.setDirection('sendrecv');
  await pc.setLocalDescription(await pc.createAnswer());
  await new Promise((r) =>
    pc.iceGatheringState === 'complete' ? r() : pc.iceGatheringStateChange.subscribe((s) => s === 'complete' && r()),
  );
  return {
    pc,
    answer: pc.localDescription.sdp,
    connected: new Promise((r) => pc.connectionStateChange.subscribe((s) => s === 'connected' && r())),
    play: (until) => {
      const enc = encodeFrame?.();
      let k = 0;
      const start = performance.now();
      const seq0 = Math.floor(Math.random() * 30000);
      const ts0 = Math.floor(Math.random() * 2 ** 30);
      const tick = () => {
        const due = start + k * 20;
        const now = performance.now();
        if (now >= until) return;
        lateness.push(now - due);
        const payload = enc ? enc(pcm8k(k)) : cached[k % 50];
        transceiver.sender.sendRtp(
          new RtpPacket(
            new RtpHeader({ payloadType: 111, sequenceNumber: (seq0 + k) & 0xffff, timestamp: (ts0 + k * 960) >>> 0, marker: k === 0 }),
            payload,
          ),
        );
        sent++;
        k++;
        setTimeout(tick, Math.max(0, start + k * 20 - performance.now()));
      };
      tick();
    },
  };
}
async function wrtcCall(id, offer) {
  const {
    RTCPeerConnection,
    nonstandard: { RTCAudioSource },
  } = require('@roamhq/wrtc');
  const pc = new RTCPeerConnection();
  const source = new RTCAudioSource();
  pc.addTrack(source.createTrack());
  await pc.setRemoteDescription({ type: 'offer', sdp: offer });
  await pc.setLocalDescription(await pc.createAnswer());
  await new Promise((r) =>
    pc.iceGatheringState === 'complete'
      ? r()
      : pc.addEventListener('icegatheringstatechange', () => pc.iceGatheringState === 'complete' && r()),
  );
  return {
    pc,
    answer: pc.localDescription.sdp,
    connected: new Promise((r) => pc.addEventListener('connectionstatechange', () => pc.connectionState === 'connected' && r())),
    play: (until) => {
      let k = 0;
      const start = performance.now();
      const tick = () => {
        const due = start + k * 10;
        const now = performance.now();
        if (now >= until) return;
        lateness.push(now - due);
        const f20 = pcm8k(k >> 1);
        source.onData({
          samples: f20.slice((k & 1) * 80, (k & 1) * 80 + 80),
          sampleRate: 8000,
          bitsPerSample: 16,
          channelCount: 1,
          numberOfFrames: 80,
        });
        sent++;
        k++;
        setTimeout(tick, Math.max(0, start + k * 10 - performance.now()));
      };
      tick();
    },
  };
}
const make = lib === 'wrtc' ? wrtcCall : wereiftCall;
const setups = [];
const calls = [];
const t0 = performance.now();
for (let i = 0; i < N; i++) {
  const { sdp } = await ask('offer', { id: i });
  const s = performance.now();
  const call = await make(i, sdp);
  far.send({ type: 'answer', id: i, sdp: call.answer });
  calls.push(call);
  call.connected.then(() => setups.push(performance.now() - s));
}
await Promise.race([Promise.all(calls.map((c) => c.connected)), new Promise((r) => setTimeout(r, 30000))]);
const setupAll = performance.now() - t0;
const cpu0 = process.cpuUsage();
const w0 = performance.now();
const until = w0 + SECONDS * 1000;
for (const c of calls) c.play(until);
await new Promise((r) => setTimeout(r, SECONDS * 1000 + 50));
const cpu = process.cpuUsage(cpu0);
const wall = performance.now() - w0;
await new Promise((r) => setTimeout(r, 300));
const { received } = await ask('stats');
const sorted = lateness.sort((a, b) => a - b);
const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const cpuMs = (cpu.user + cpu.system) / 1000;
const setupsS = setups.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    lib,
    enc: lib === 'wrtc' ? 'libwebrtc' : ENC,
    N,
    connected: setups.length,
    setupMsP50: +setupsS[Math.floor(setups.length / 2)]?.toFixed(1),
    setupMsMax: +setupsS.at(-1)?.toFixed(1),
    setupAllMs: Math.round(setupAll),
    cpuPct: +((cpuMs / wall) * 100).toFixed(1),
    cpuMsPerCallSecond: +(cpuMs / (N * SECONDS)).toFixed(2),
    ticks: sorted.length,
    latenessMsP50: +q(0.5).toFixed(2),
    latenessMsP99: +q(0.99).toFixed(2),
    latenessMsMax: +sorted.at(-1).toFixed(2),
    farReceivedPerCall: Math.round(received.reduce((a, b) => a + b, 0) / N),
    expectedPerCall: SECONDS * 50,
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
  }),
);
for (const c of calls) await c.pc.close();
far.kill();
process.exit(0);
