import type { MediaPathFailure } from './media-path.errors.js';
import type { PacingReport } from './packet-pacer.js';
import type { MediaTransportOptions, PlaybackReport } from './peer-media.js';
import type { PriorityOutcome } from './thread-priority.js';

/** What the thread is started with. */
export interface ThreadSettings {
  /** The niceness the thread asks for (see setThreadNiceness); 0 leaves it as the process's. */
  niceness: number;
}

/**
 * What the process asks of its media thread. `call` names a call's peer; `seq` pairs a request
 * with its {@link Reply}. A prompt's samples are sent once and named by `prompt` from then on.
 */
export type Request =
  | { op: 'offer'; seq: number; call: number; options: MediaTransportOptions }
  | { op: 'answer'; seq: number; call: number; options: MediaTransportOptions; offerSdp: string }
  | { op: 'acceptAnswer'; seq: number; call: number; sdp: string }
  | { op: 'connected'; seq: number; call: number }
  | { op: 'play'; seq: number; call: number; prompt: number; sampleRate: number; samples?: Int16Array }
  | { op: 'close'; seq: number; call: number }
  | { op: 'closePacingWindow'; seq: number }
  | { op: 'stop'; call: number }
  | { op: 'listenAudio'; call: number }
  | { op: 'forgetPrompt'; prompt: number };

/** An error as it crosses the thread boundary: a media path failure keeps its reason and time. */
export interface ThreadError {
  message: string;
  mediaPath?: { reason: MediaPathFailure; afterMs: number };
}

export type Reply = { kind: 'reply'; seq: number; value?: string | PlaybackReport } | { kind: 'reply'; seq: number; error: ThreadError };

/** What the media thread tells the process unasked, in batches (see {@link Message}). */
export type MediaEvent =
  | { event: 'key'; call: number; key: string }
  | { event: 'audio'; call: number; samples: Int16Array; rtpTimestamp: number }
  | { event: 'pacing'; report: PacingReport }
  | { event: 'priority'; outcome: PriorityOutcome };

export type Message = Reply | { kind: 'events'; events: MediaEvent[] };
