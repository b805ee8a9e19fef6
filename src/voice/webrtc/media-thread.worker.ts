// The media thread: every WhatsApp call's peer connection (ICE, DTLS-SRTP, Opus) and the pacing
// clock of their prompts live here, on an event loop that does nothing else. On the worker's main
// loop, database replies, webhooks and job bookkeeping for a hundred calls made 20 ms packets leave
// late (p99 72 ms, max 141 ms); here only media work can delay them. It asks for a higher priority
// than the machine's other work (WHATSAPP_CALL_MEDIA_NICENESS): with a process spinning on one of
// the two cores, its packets' p99 lateness was 37-47 ms at its process's niceness and 7-8 ms at -10,
// a hundred calls. Driven by media-thread.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { MediaPathNotConnected } from './media-path.errors.js';
import type { MediaEvent, Message, Request, ThreadError, ThreadSettings } from './media-thread.protocol.js';
import { closePacingWindow, onPacingReport } from './packet-pacer.js';
import { PeerMedia, type PlaybackReport } from './peer-media.js';
import { setThreadNiceness } from './thread-priority.js';

const port = parentPort!;
const peers = new Map<number, PeerMedia>();
/** Prompts' samples by the id the process gave them; the same array plays for every call, so its Opus frames are made once. */
const prompts = new Map<number, Int16Array>();

let events: MediaEvent[] = [];
let flushing = false;

/** Events go out in one message per turn of the loop, whatever number of calls produced them. */
function emit(event: MediaEvent): void {
  events.push(event);
  if (flushing) return;
  flushing = true;
  setImmediate(flush);
}

function flush(): void {
  flushing = false;
  if (events.length === 0) return;
  const batch = events;
  events = [];
  port.postMessage({ kind: 'events', events: batch } satisfies Message);
}

function threadError(error: unknown): ThreadError {
  if (error instanceof MediaPathNotConnected)
    return { message: error.message, mediaPath: { reason: error.reason, afterMs: error.afterMs } };
  return { message: error instanceof Error ? error.message : String(error) };
}

/** Answers request `seq`; events produced before it go first, so the process sees them in order. */
async function answer(seq: number, work: () => Promise<string | PlaybackReport | void>): Promise<void> {
  let message: Message;
  try {
    const value = await work();
    message = { kind: 'reply', seq, ...(value !== undefined && { value }) };
  } catch (error) {
    message = { kind: 'reply', seq, error: threadError(error) };
  }
  flush();
  port.postMessage(message);
}

function peer(call: number): PeerMedia {
  const found = peers.get(call);
  if (!found) throw new Error(`No media for call ${call}: it was closed`);
  return found;
}

function opened(call: number, media: PeerMedia): string {
  peers.set(call, media);
  media.onKey((key) => emit({ event: 'key', call, key }));
  return media.localSdp;
}

function handle(request: Request): void {
  switch (request.op) {
    case 'offer':
      return void answer(request.seq, async () => opened(request.call, await PeerMedia.offer(request.options)));
    case 'answer':
      return void answer(request.seq, async () => opened(request.call, await PeerMedia.answer(request.offerSdp, request.options)));
    case 'acceptAnswer':
      return void answer(request.seq, () => peer(request.call).acceptAnswer(request.sdp));
    case 'connected':
      return void answer(request.seq, () => peer(request.call).connected());
    case 'play': {
      if (request.samples) prompts.set(request.prompt, request.samples);
      const samples = prompts.get(request.prompt);
      return void answer(request.seq, () => {
        if (!samples) throw new Error(`Prompt ${request.prompt} was never sent to the media thread`);
        return peer(request.call).play({ sampleRate: request.sampleRate, samples });
      });
    }
    case 'close':
      return void answer(request.seq, async () => {
        const media = peers.get(request.call);
        peers.delete(request.call);
        await media?.close();
      });
    case 'closePacingWindow':
      return void answer(request.seq, () => Promise.resolve(closePacingWindow()));
    case 'stop':
      return peers.get(request.call)?.stop();
    case 'listenAudio':
      return peers
        .get(request.call)
        ?.onAudio((samples, rtpTimestamp) => emit({ event: 'audio', call: request.call, samples, rtpTimestamp }));
    case 'forgetPrompt':
      prompts.delete(request.prompt);
      return;
  }
}

const { niceness } = workerData as ThreadSettings;
if (niceness !== 0) emit({ event: 'priority', outcome: setThreadNiceness(niceness) });
onPacingReport((report) => emit({ event: 'pacing', report }));
port.on('message', handle);
