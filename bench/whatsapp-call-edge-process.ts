// Meta's side of the WhatsApp IVR bench (bench/scenarios/whatsapp-ivr-calls.ts) in a process of its
// own, so that its work (a real WebRTC peer per call: ICE, DTLS, SRTP decryption of every packet) is
// not the worker's: the Graph API's `/calls` (test/support's fake, as the e2e tests use it) and the
// called users, each of whom listens to the whole prompt and then presses KEY.
// Started with fork(); env: WEBHOOK_URL, APP_SECRET, PHONE_NUMBER_ID, TOKEN, PROMPT_PACKETS, KEY.
import { FakeCloudApi } from '../test/support/fake-cloud-api.js';
import { FakeMetaCalls, type FakeCall } from '../test/support/fake-meta-calls.js';

/** What the bench asks for once every call of a round has ended. */
export interface EdgeStats {
  calls: number;
  /** Per call: from ACCEPTED posted to the first prompt packet's arrival (ms). */
  firstPacketAfterAcceptedMs: number[];
  /** Per call: the prompt packets that arrived. */
  packets: number[];
  keysPressed: number;
  /** The most calls whose prompt was arriving at the same moment. */
  mostPromptsAtOnce: number;
}

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const PROMPT_PACKETS = Number(env('PROMPT_PACKETS'));
const KEY = env('KEY');
const POLL_MS = 50;

const pressed = new Set<string>();

/** Presses KEY on every accepted call whose whole prompt has arrived. */
function pressWhenHeard(meta: FakeMetaCalls): void {
  for (const call of meta.calls.values()) {
    if (pressed.has(call.id) || call.terminatedBy || call.peer.received.length < PROMPT_PACKETS) continue;
    pressed.add(call.id);
    void call.peer.pressKey(KEY, 200).catch((error: unknown) => console.error(`press on ${call.id}:`, error));
  }
}

/** The largest number of [first packet, last packet] spans that overlap. */
function mostAtOnce(calls: FakeCall[]): number {
  const edges = calls
    .filter((call) => call.peer.received.length > 0)
    .flatMap((call) => [
      { at: call.peer.received[0].at, step: 1 },
      { at: call.peer.received.at(-1)!.at, step: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (now += edge.step));
  return most;
}

function stats(meta: FakeMetaCalls): EdgeStats {
  const calls = [...meta.calls.values()];
  return {
    calls: calls.length,
    firstPacketAfterAcceptedMs: calls
      .filter((call) => call.acceptedPerf !== undefined && call.peer.received.length > 0)
      .map((call) => call.peer.received[0].at - call.acceptedPerf!),
    packets: calls.map((call) => call.peer.received.length),
    keysPressed: pressed.size,
    mostPromptsAtOnce: mostAtOnce(calls),
  };
}

async function main(): Promise<void> {
  const graph = await FakeCloudApi.start({ acceptedTokens: [env('TOKEN')] });
  const meta = new FakeMetaCalls(env('WEBHOOK_URL'), env('APP_SECRET'), env('PHONE_NUMBER_ID'));
  meta.callee = { answer: 'accept', ringMs: 200 };
  graph.calls = meta;
  setInterval(() => pressWhenHeard(meta), POLL_MS);
  // A round's figures, then a clean slate for the next round.
  process.on('message', (request: { type: 'stats' }) => {
    if (request.type !== 'stats') return;
    process.send?.({ type: 'stats', stats: stats(meta) });
    meta.calls.clear();
    pressed.clear();
  });
  process.send?.({ type: 'listening', url: graph.url });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
