// `npm run build && node dist/bench/webrtc-media.js`: how many WhatsApp-style calls one worker process
// plays at once. For each count in WEBRTC_CALLS (default 10,50,100,200) this process, standing for
// the worker, answers that many offers with WebRtcMediaTransport; a far-end process (one real
// WebRTC peer per call, as Meta's edge) receives. All calls then play the same eSpeak prompt (stored
// as the service stores it: WAV 8 kHz mono) for WEBRTC_SECONDS (default 10; the calls start spread
// over one 20 ms slot, as calls accepted at different moments would), and afterwards each far-end
// peer presses a key as an RFC 4733 event. Reported: connect time (answer → ICE + DTLS up), the
// lateness of every paced packet against its slot (p50/p99/max), the first packet after play(),
// this process's CPU per call-second during the playing, packets at the far end, keys recognised.
// `npm run bench` runs it at 100 calls (bench/scenarios/whatsapp-call-media.ts).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppConfig } from '../src/config/app-config.js';
import { validateEnv } from '../src/config/env.schema.js';
import { AudioConverter } from '../src/media/audio-converter.js';
import { Ffmpeg } from '../src/media/ffmpeg.js';
import { EspeakThread } from '../src/speech/espeak-thread.js';
import { LatenessHistogram } from '../src/voice/webrtc/lateness-histogram.js';
import { pcmFromWav, type PcmAudio } from '../src/voice/webrtc/pcm-audio.js';
import { MediaThread } from '../src/voice/webrtc/media-thread.js';
import type { PacingReport } from '../src/voice/webrtc/packet-pacer.js';
import { WebRtcMediaTransport } from '../src/voice/webrtc/webrtc-media-transport.js';

const COUNTS = (process.env.WEBRTC_CALLS ?? '10,50,100,200').split(',').map(Number);
const SECONDS = Number(process.env.WEBRTC_SECONDS ?? 10);
const LOCAL = { hostAddresses: ['127.0.0.1'], onlyLocalAddresses: ['127.0.0.1'], connectTimeoutMs: 30_000 };
const TEXT =
  'Hello, this is a reminder of your appointment tomorrow at ten in the morning. Press one to confirm, two to cancel, or stay on the line to hear this message again.';

class FarEnd {
  private readonly child: ChildProcess = fork(join(__dirname, 'webrtc-far-end-process.js'), { detached: true });
  private readonly waiting = new Map<string, (message: any) => void>();

  constructor() {
    this.child.on('message', (message: any) => {
      if (message.type === 'error') throw new Error(`far end: ${message.message}`);
      const key = `${message.type}${message.id ?? ''}`;
      this.waiting.get(key)?.(message);
      this.waiting.delete(key);
    });
  }

  ask(request: { type: string; id?: number; [k: string]: unknown }, replyType = request.type): Promise<any> {
    return new Promise((resolve) => {
      this.waiting.set(`${replyType}${request.id ?? ''}`, resolve);
      this.child.send(request);
    });
  }

  tell(request: object): void {
    this.child.send(request);
  }

  stop(): void {
    this.child.kill();
  }
}

async function speechPrompt(): Promise<PcmAudio> {
  const dir = mkdtempSync(join(tmpdir(), 'webrtc-bench-'));
  const espeak = new EspeakThread();
  try {
    await espeak.speak(TEXT, 'en-us+f3', join(dir, 'speech.wav'));
    const converter = new AudioConverter(new Ffmpeg(new AppConfig(validateEnv({ JWT_SECRET: 'x'.repeat(32) }))));
    await converter.toTelephonyWav(join(dir, 'speech.wav'), join(dir, 'prompt.wav'));
    return pcmFromWav(readFileSync(join(dir, 'prompt.wav')));
  } finally {
    await espeak.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The prompt repeated to `seconds`. */
function loop(prompt: PcmAudio, seconds: number): PcmAudio {
  const samples = new Int16Array(prompt.sampleRate * seconds);
  for (let i = 0; i < samples.length; i++) samples[i] = prompt.samples[i % prompt.samples.length];
  return { sampleRate: prompt.sampleRate, samples };
}

/**
 * The lateness of a bare 20 ms timer in this process with no call up, for 3 s: the floor the
 * machine's other work puts under every figure (on a shared machine it is far from zero).
 */
async function idleTimerLateness(): Promise<LatenessHistogram> {
  const histogram = new LatenessHistogram();
  const start = performance.now();
  for (let k = 1; k <= 150; k++) {
    await sleep(Math.max(0, start + k * 20 - performance.now()));
    histogram.record(performance.now() - (start + k * 20));
  }
  return histogram;
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(count: number, audio: PcmAudio, farEnd: FarEnd): Promise<Record<string, unknown>> {
  const loadBefore = loadavg()[0];
  const idle = await idleTimerLateness();
  const calls: WebRtcMediaTransport[] = [];
  const connectMs: number[] = [];
  const setupStarted = performance.now();
  // Ten calls set up at a time, as a burst of ACCEPTED webhooks would come in.
  for (let first = 0; first < count; first += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, count - first) }, async (_, i) => {
        const id = first + i;
        const { sdp } = await farEnd.ask({ type: 'offer', id });
        const startedAt = performance.now();
        const call = await WebRtcMediaTransport.answer(sdp, LOCAL);
        calls[id] = call;
        farEnd.tell({ type: 'answer', id, sdp: call.localSdp });
        await call.connected();
        connectMs.push(performance.now() - startedAt);
      }),
    );
  }
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  const keys = calls.map(() => [] as string[]);
  calls.forEach((call, i) => call.onKey((key) => keys[i].push(key)));
  await sleep(500);

  await MediaThread.closePacingWindow(); // the pacing report covers the playing only
  const pacing: PacingReport[] = [];
  const stopListening = MediaThread.onPacingReport((report) => pacing.push(report));
  const cpuBefore = process.cpuUsage();
  const eluBefore = MediaThread.eventLoopUtilization();
  const playStarted = performance.now();
  const reports = await Promise.all(
    calls.map(async (call, i) => {
      await sleep((20 * i) / count);
      return call.play(audio);
    }),
  );
  const playSeconds = (performance.now() - playStarted) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const elu = MediaThread.eventLoopUtilization(eluBefore)!;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  await MediaThread.closePacingWindow();
  stopListening();
  // One window: the playing lasts less than the report's minute.
  if (pacing.length !== 1) throw new Error(`expected one pacing report for the playing, got ${pacing.length}`);
  const [paced] = pacing;

  await farEnd.ask({ type: 'press', key: '7' }, 'pressed');
  await sleep(1000);
  const { opus } = (await farEnd.ask({ type: 'count' })) as { opus: number[] };
  const expected = reports[0].packets;
  const sent = reports.reduce((n, r) => n + r.packets, 0);
  await Promise.all(calls.map((call) => call.close()));
  await farEnd.ask({ type: 'close' }, 'closed');
  return {
    calls: count,
    'connect p50 ms': Math.round(quantile(connectMs, 0.5)),
    'connect max ms': Math.round(Math.max(...connectMs)),
    'setup s': +setupSeconds.toFixed(1),
    'lateness p50 ms': +paced.p50Ms.toFixed(1),
    'lateness p99 ms': +paced.p99Ms.toFixed(1),
    'lateness max ms': +paced.maxMs.toFixed(1),
    'first packet p99 ms': +quantile(
      reports.map((r) => r.firstPacketAfterMs),
      0.99,
    ).toFixed(1),
    // The share of wall time the media thread's event loop was running callbacks: near 100 with a low CPU %
    // means the thread was runnable but waiting for a core (a busy machine), not short of work to do.
    'event loop busy %': Math.round(elu.utilization * 100),
    'CPU %': +((cpuMs / (playSeconds * 1000)) * 100).toFixed(0),
    // Per second of audio sent (50 packets), so that a starved run that sent late is not counted cheaper.
    'CPU ms / call-s': +(cpuMs / (sent / 50)).toFixed(2),
    'packets at far end': `${opus.reduce((a, b) => a + b, 0)}/${expected * count}`,
    'keys recognised': `${keys.filter((k) => k.length === 1 && k[0] === '7').length}/${count}`,
    'idle timer p99 ms': +idle.quantile(0.99).toFixed(1),
    'load avg before/after': `${loadBefore.toFixed(1)}/${loadavg()[0].toFixed(1)}`,
    'RSS MB': Math.round(process.memoryUsage().rss / 1e6),
  };
}

async function main(): Promise<void> {
  const prompt = await speechPrompt();
  console.log(
    `prompt: eSpeak, ${(prompt.samples.length / prompt.sampleRate).toFixed(1)} s at ${prompt.sampleRate} Hz, looped to ${SECONDS} s; Node ${process.version}`,
  );
  const audio = loop(prompt, SECONDS);
  const farEnd = new FarEnd();
  const rows: Array<Record<string, unknown>> = [];
  try {
    for (const count of COUNTS) {
      rows.push(await run(count, audio, farEnd));
      console.log(JSON.stringify(rows.at(-1)));
    }
  } finally {
    farEnd.stop();
  }
  const columns = Object.keys(rows[0]);
  console.log(`\n| ${columns.join(' | ')} |\n|${columns.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${columns.map((c) => String(row[c])).join(' | ')} |`);
  process.exit(0);
}

void main();
