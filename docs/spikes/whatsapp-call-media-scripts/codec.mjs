// Encode/decode CPU per second of mono speech-like audio (tone sweep + noise) at 8/16/48 kHz, 20 ms frames.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const SECONDS = Number(process.env.SECONDS ?? 20);
function signal(rate) {
  const n = rate * SECONDS;
  const out = new Int16Array(n);
  let seed = 1;
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const t = i / rate;
    out[i] = Math.round(8000 * Math.sin(2 * Math.PI * (200 + 300 * Math.sin(t)) * t) + (seed / 0x7fffffff - 0.5) * 2000);
  }
  return out;
}
const libs = {
  opusscript: (rate) => {
    const O = require('opusscript');
    const e = new O(rate, 1, O.Application.VOIP);
    const d = new O(48000, 1, O.Application.VOIP);
    return {
      enc: (f) => e.encode(Buffer.from(f.buffer, f.byteOffset, f.byteLength), f.length),
      dec: (p) => d.decode(p),
      name: 'opusscript (wasm)',
    };
  },
  '@discordjs/opus': (rate) => {
    const { OpusEncoder } = require('@discordjs/opus');
    const e = new OpusEncoder(rate, 1);
    const d = new OpusEncoder(48000, 1);
    return { enc: (f) => e.encode(Buffer.from(f.buffer, f.byteOffset, f.byteLength)), dec: (p) => d.decode(p) };
  },
  '@evan/opus': (rate) => {
    const { Encoder, Decoder } = require('@evan/opus');
    const e = new Encoder({ channels: 1, sample_rate: rate, application: 'voip' });
    const d = new Decoder({ channels: 1, sample_rate: 48000 });
    return { enc: (f) => e.encode(f), dec: (p) => d.decode(p) };
  },
};
const which = process.argv[2];
for (const rate of [8000, 16000, 48000]) {
  const pcm = signal(rate);
  const frame = rate / 50;
  const lib = libs[which](rate);
  for (let i = 0; i < 50; i++) lib.enc(pcm.subarray(i * frame, (i + 1) * frame)); // warm-up
  const packets = [];
  let t0 = process.cpuUsage();
  const w0 = performance.now();
  for (let i = 0; i + frame <= pcm.length; i += frame) packets.push(Buffer.from(lib.enc(pcm.subarray(i, i + frame))));
  const encCpu = process.cpuUsage(t0);
  const encWall = performance.now() - w0;
  t0 = process.cpuUsage();
  for (const p of packets) lib.dec(p);
  const decCpu = process.cpuUsage(t0);
  const bytes = packets.reduce((s, p) => s + p.length, 0);
  console.log(
    JSON.stringify({
      lib: which,
      rate,
      encMsPerAudioSec: +((encCpu.user + encCpu.system) / 1000 / SECONDS).toFixed(2),
      encWallMsPerSec: +(encWall / SECONDS).toFixed(2),
      decTo48kMsPerAudioSec: +((decCpu.user + decCpu.system) / 1000 / SECONDS).toFixed(2),
      avgPacketBytes: +(bytes / packets.length).toFixed(1),
      usPerFrame: +((encCpu.user + encCpu.system) / packets.length).toFixed(1),
    }),
  );
}
