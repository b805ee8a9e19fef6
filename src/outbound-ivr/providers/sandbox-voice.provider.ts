import { setTimeout as sleep } from 'node:timers/promises';
import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { Channel, VoiceSandboxSettings } from '../../channels/channel.entity.js';
import type { Instructions } from '../dialog/dialog-state.js';
import { CallType, type AnsweredBy } from '../ivr-enums.js';
import { CallAudio, RECORDING_SAMPLE_RATE } from '../recording/call-audio.js';
import { CallRecordings } from '../recording/call-recordings.service.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';
import type { CallSession, VoiceProvider } from './voice-provider.js';

const DEFAULTS: VoiceSandboxSettings = { answer: true, pressDigits: [], ringMs: 1000, talkMs: 1000 };
/** How often a long wait looks whether the call was cancelled. */
const LIVENESS_CHECK_MS = 500;

/**
 * No network: plays the call out in time from the channel's sandbox settings. It rings for
 * `ringMs`, then answers, is busy or never answers; each prompt takes `talkMs`, and each question
 * is answered with the next of `pressDigits` (an empty string, or none left, is silence).
 * A number in `machineNumbers` is answered by an answering machine: it presses nothing, and a call
 * with machine detection learns so at the answer (`machine_start` for Hangup, `machine_end_beep`,
 * once its greeting ended, for LeaveMessage), as Twilio's synchronous detection reports it.
 * A recorded call leaves a two-channel WAV as long as the call: the prompts it played (our own
 * stored audio; other URLs are silence) and the tones of the keys pressed. It also stands in for
 * WhatsApp calls on a sandbox WhatsApp number (its `voice.sandbox` settings, or these defaults),
 * both ours and a simulated user's (answered at once, the same digits pressed).
 */
@Injectable()
export class SandboxVoiceProvider implements VoiceProvider, BeforeApplicationShutdown {
  /** Aborts every wait at shutdown: the job fails, and its retry ends the call as interrupted. */
  private readonly shutdown = new AbortController();

  constructor(private readonly recordings: CallRecordings) {}

  async call(channel: Channel, request: OutboundIvrRequestEntity, session: CallSession): Promise<void> {
    const settings = { ...DEFAULTS, ...channel.voiceSandbox };
    let tape: Tape | null = null;
    const play = async (inCall: CallSession) => {
      tape = await this.play(settings, request, inCall);
    };
    // Nothing to wait for: the whole call is one transaction.
    if (settings.ringMs <= 0 && settings.talkMs <= 0 && session.batch) await session.batch(play);
    else await play(session);
    // Written and stored once the call's outcome is reported, outside its transaction: the outcome
    // webhook never waits for the file (the Call Webhook does, as for Twilio's recordings).
    const recorded = tape as Tape | null;
    if (recorded)
      await this.recordings.storeAndSettle({ id: request.id, workspaceId: request.workspaceId }, recorded.audio, recorded.lengthMs);
  }

  /** Plays the call out; the tape of a recorded call that was answered (however it ended), else null. */
  private async play(settings: VoiceSandboxSettings, request: OutboundIvrRequestEntity, session: CallSession): Promise<Tape | null> {
    const callId = `SB${request.id.replace(/-/g, '')}`;
    if (!(await session.progress({ kind: 'initiated', at: new Date(), callId }))) return null;
    if (!(await session.progress({ kind: 'ringing', at: new Date() }))) return null;
    // A WhatsApp user's simulated call to us is answered at once; only our calls ring and may go unanswered.
    const inbound = request.direction === CallType.Inbound;
    if (!inbound && !(await this.wait(settings.ringMs, session))) return null;
    if (!inbound && settings.answer !== true) {
      const ending = settings.answer === 'busy' ? 'busy' : 'no-answer';
      await session.progress({ kind: 'ended', at: new Date(), ending });
      return null;
    }
    const machine = settings.machineNumbers?.includes(request.destinationNumber) ?? false;
    const digits = machine ? [] : [...settings.pressDigits];
    const answeredBy = request.machineDetection === 'Off' ? null : machine ? machineAnswer(request) : 'human';
    const answeredAt = Date.now();
    const tape = request.record ? new Tape(request.workspaceId, answeredAt, this.recordings) : null;
    let instructions = await session.converse({ kind: 'answered', answeredBy });
    await tape?.played(instructions);
    while (instructions.gather) {
      if (!(await this.wait(settings.talkMs, session))) return tape?.end() ?? null;
      const digit = digits.shift();
      if (digit) tape?.pressed(digit);
      const input = digit ? ({ kind: 'digit', digit } as const) : ({ kind: 'silence' } as const);
      instructions = await session.converse(input, instructions.turn);
      await tape?.played(instructions);
    }
    if (!(await this.wait(settings.talkMs, session))) return tape?.end() ?? null;
    const at = new Date();
    await session.progress({ kind: 'ended', at, ending: 'completed' });
    return tape?.end(at.getTime()) ?? null;
  }

  /** Nothing to do: the simulated call notices at its next check that the record is finished. */
  async hangUp(): Promise<void> {}

  /** A simulated call exists only in the job that plays it. */
  finalReport(): Promise<null> {
    return Promise.resolve(null);
  }

  beforeApplicationShutdown(): void {
    this.shutdown.abort();
  }

  /** Waits `ms`, checking now and then that the call was not cancelled; false if it was. */
  private async wait(ms: number, session: CallSession): Promise<boolean> {
    const end = Date.now() + ms;
    for (let left = ms; left > 0; left = end - Date.now()) {
      await sleep(Math.min(left, LIVENESS_CHECK_MS), undefined, { signal: this.shutdown.signal });
      if (end - Date.now() > 0 && !(await session.isLive())) return false;
    }
    return true;
  }
}

/** What Twilio's detection says of a machine: at once with Enable (Hangup), after the beep with DetectMessageEnd (LeaveMessage). */
function machineAnswer(request: OutboundIvrRequestEntity): AnsweredBy {
  return request.machineDetection === 'LeaveMessage' ? 'machine_end_beep' : 'machine_start';
}

/**
 * What a recorded sandbox call sounded like, as it happens: each exchange's files one after another
 * from the moment they were played, each key's tone when it was pressed.
 */
class Tape {
  readonly audio = new CallAudio();
  /** How long the call ran from its answer (set by {@link end}). */
  lengthMs = 0;

  constructor(
    private readonly workspaceId: string,
    private readonly startedAt: number,
    private readonly recordings: CallRecordings,
  ) {}

  async played(instructions: Instructions): Promise<void> {
    let atMs = Date.now() - this.startedAt;
    const urls = [...instructions.play, ...(instructions.gather ? [instructions.gather.promptUrl] : [])];
    for (const url of urls) {
      const samples = await this.recordings.promptSamples(this.workspaceId, url);
      if (!samples) continue;
      this.audio.play(atMs, samples);
      atMs += (samples.length / RECORDING_SAMPLE_RATE) * 1000;
    }
  }

  pressed(digit: string): void {
    this.audio.press(Date.now() - this.startedAt, digit);
  }

  /** The call ended at `at`: the recording is that long. */
  end(at = Date.now()): this {
    this.lengthMs = at - this.startedAt;
    return this;
  }
}
