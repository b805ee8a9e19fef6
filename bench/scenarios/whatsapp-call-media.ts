import { NodeProcess } from '../harness.js';
import type { Scenario, ScenarioResult } from './index.js';

const CALLS = Number(process.env.BENCH_WHATSAPP_CALLS ?? 100);
const SECONDS = Number(process.env.BENCH_WHATSAPP_CALL_SECONDS ?? 10);

/** The figures bench/webrtc-media.ts prints for one count of calls (its JSON line). */
interface MediaRow {
  calls: number;
  'lateness p50 ms': number;
  'lateness p99 ms': number;
  'lateness max ms': number;
  'first packet p99 ms': number;
  'event loop busy %': number;
  'CPU ms / call-s': number;
  'packets at far end': string;
  'keys recognised': string;
  'idle timer p99 ms': number;
  'connect p50 ms': number;
}

const complete = (fraction: string) => {
  const [got, of] = fraction.split('/').map(Number);
  return got === of && of > 0;
};

/**
 * Issue 32: CALLS WhatsApp calls' media at once in one process standing for the worker (its
 * WebRtcMediaTransport, the service's own Opus frames and pacing clock), each with a real WebRTC
 * peer in a far-end process: 20 ms packets on schedule (p99 lateness ≤ 10 ms) and every key
 * recognised. The baseline from the same run is the machine's own timer lateness with nothing to
 * do (`idle timer p99`). The IVR path's first packet after ACCEPTED is measured by the e2e test
 * `whatsapp-ivr-call` (five calls at once), not here.
 */
export const whatsAppCallMediaScenario: Scenario = {
  name: `WhatsApp call media: ${CALLS} calls at once in one worker process, ${SECONDS} s of speech each, then a key`,
  async run(): Promise<ScenarioResult> {
    const bench = NodeProcess.start('dist/bench/webrtc-media.js', { WEBRTC_CALLS: String(CALLS), WEBRTC_SECONDS: String(SECONDS) });
    const code = await new Promise<number | null>((resolve) => bench.child.once('exit', resolve));
    const line = bench.log.split('\n').find((l) => l.startsWith('{"calls"'));
    if (code !== 0 || !line) throw new Error(`webrtc-media exited ${code}:\n${bench.log.slice(-2000)}`);
    const row = JSON.parse(line) as MediaRow;
    const cpu = row['CPU ms / call-s'];
    return {
      name: this.name,
      checks: [
        {
          what: `packet lateness p50 ${row['lateness p50 ms']} / p99 ${row['lateness p99 ms']} / max ${row['lateness max ms']} ms (p99 ≤ 10); idle timer p99 on this machine now ${row['idle timer p99 ms']} ms`,
          ok: row['lateness p99 ms'] <= 10,
        },
        {
          what: `${row['packets at far end']} packets at the far end, ${row['keys recognised']} keys recognised`,
          ok: complete(row['packets at far end']) && complete(row['keys recognised']),
        },
        {
          what: `CPU ${cpu} ms per call-second (one core: about ${Math.floor(1000 / cpu)} calls by CPU), event loop ${row['event loop busy %']} % busy; connect p50 ${row['connect p50 ms']} ms`,
          ok: true,
        },
      ],
    };
  },
};
