import { applyProgress, type CallProgress } from './call-progress.js';
import { converse, type DialogInput } from './dialog/dialog-engine.js';
import type { Instructions } from './dialog/dialog-state.js';
import { isFinished, isMachine, OutboundIvrStatus } from './ivr-enums.js';
import type { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';

const HANG_UP: Instructions = { play: [], gather: null, turn: -1 };

/**
 * A call record held under its row lock, changed in memory by provider reports and dialog turns;
 * the tracker writes `changes` once when the work is done.
 */
export class LiveCall {
  readonly changes: Partial<OutboundIvrRequestEntity> = {};
  private readonly finishedBefore: boolean;

  constructor(readonly record: OutboundIvrRequestEntity) {
    this.finishedBefore = isFinished(record.status);
  }

  get live(): boolean {
    return !isFinished(this.record.status);
  }

  /** Whether this work finished the call (so its outcome must be reported). */
  get finishedNow(): boolean {
    return !this.finishedBefore && !this.live;
  }

  /** A cancelled call the provider knows of: it must be hung up there (once, when either becomes true). */
  get needsHangUp(): boolean {
    const { record } = this;
    return record.status === OutboundIvrStatus.Cancelled && record.callId !== null && (this.finishedNow || 'callId' in this.changes);
  }

  /** Applies a provider's report; false once the call is finished. */
  progress(progress: CallProgress): boolean {
    const changes = applyProgress(this.record, progress);
    if (changes) this.change(changes);
    return this.live;
  }

  /**
   * One exchange with the callee. `turn` is the exchange the provider answers; a stale one (a
   * repeated callback) gets the current instructions again without moving the dialog.
   */
  converse(input: DialogInput, turn?: number): Instructions {
    const { record } = this;
    if (!this.live || !record.script) return HANG_UP;
    if (input.kind === 'answered' && (record.machineDetection ?? 'Off') !== 'Off') {
      this.progress({ kind: 'answered', at: new Date(), answeredBy: input.answeredBy });
      if (isMachine(record.answeredBy)) return this.machineAnswered();
    }
    const repeated = input.kind === 'answered' ? record.dialog !== null : turn !== undefined && turn !== record.dialog?.turn;
    if (repeated && record.dialog) return record.dialog.instructions;
    const now = new Date();
    if (input.kind === 'answered') this.progress({ kind: 'answered', at: now });
    const step = converse(record.script, record.dialog, input, now);
    this.change({ dialog: step.state });
    if (step.answer) this.change({ answers: [...record.answers, step.answer], pressedDigit: step.answer.digit });
    return step.state.instructions;
  }

  /**
   * A machine answered: the IVR is not run. Hangup ends the call at once; LeaveMessage plays the
   * voicemail (the provider detected the end of the greeting) and then hangs up. The same answer
   * every time, so a repeated callback gets it again.
   */
  private machineAnswered(): Instructions {
    const { record } = this;
    const voicemail = record.machineDetection === 'LeaveMessage' && record.answeredBy !== 'fax' ? record.script?.voicemailUrl : null;
    // A machine's recording of the call hears the announcement too, before the voicemail.
    const play = voicemail ? [record.script?.announcementUrl, voicemail].filter((url): url is string => !!url) : [];
    return { play, gather: null, turn: -1 };
  }

  private change(changes: Partial<OutboundIvrRequestEntity>): void {
    Object.assign(this.record, changes);
    Object.assign(this.changes, changes);
  }
}
