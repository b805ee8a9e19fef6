// `node dist/bench/cpu-profile-summary.js <file.cpuprofile>`: where a process's CPU went, from a profile
// written by `node --cpu-prof`: self time summed by what the code belongs to (the WebRTC stack's
// parts, the Opus codec, Node's own modules, GC, idle). Native work (OpenSSL in SRTP, libopus) is
// counted in the JavaScript function that called it.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const BUCKETS: Array<[string, (url: string, fn: string) => boolean]> = [
  ['idle', (_, fn) => fn === '(idle)'],
  ['garbage collection', (_, fn) => fn === '(garbage collector)'],
  ['werift SRTP/SRTCP', (url) => /werift\/lib\/rtp\/src\/srtp/.test(url)],
  ['werift RTP/RTCP', (url) => /werift\/lib\/rtp\//.test(url)],
  ['werift DTLS', (url) => /werift\/lib\/dtls\//.test(url)],
  ['werift ICE/STUN', (url) => /werift\/lib\/ice\//.test(url)],
  ['werift peer connection, sender, receiver', (url) => /werift\/lib\/webrtc\//.test(url)],
  ['werift other', (url) => /werift/.test(url)],
  ['Opus (@evan/opus)', (url) => /@evan\/opus/.test(url)],
  ['voice/webrtc (pacer, transport)', (url) => /voice\/webrtc/.test(url)],
  ['Node internals (timers, dgram, streams)', (url) => url.startsWith('node:')],
  ['other JavaScript', (url) => url !== ''],
  ['native, not attributed ((program))', () => true],
];

const profile = JSON.parse(readFileSync(process.argv[2], 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const totals = new Map<string, number>();
let all = 0;
profile.samples.forEach((id, i) => {
  const { url, functionName } = byId.get(id)!.callFrame;
  const bucket = BUCKETS.find(([, match]) => match(url, functionName))![0];
  const micros = profile.timeDeltas[i] ?? 0;
  totals.set(bucket, (totals.get(bucket) ?? 0) + micros);
  all += micros;
});
const busy = all - (totals.get('idle') ?? 0);
console.log(`| where | ms | % of busy |\n|---|---|---|`);
for (const [bucket] of BUCKETS) {
  const micros = totals.get(bucket) ?? 0;
  if (micros === 0) continue;
  console.log(`| ${bucket} | ${Math.round(micros / 1000)} | ${bucket === 'idle' ? '–' : ((micros / busy) * 100).toFixed(1)} |`);
}
