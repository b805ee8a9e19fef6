import { OutboundIvrResult } from '../ivr-enums.js';

/** What the provider should do next on the live call. */
export interface Instructions {
  /** Played in order. */
  play: string[];
  /** Then ask for one digit, or null to hang up after playing. */
  gather: { promptUrl: string; timeoutMs: number; digitTimeoutMs: number } | null;
  /** Counts the exchanges of a call; a provider callback naming an older turn is a duplicate. */
  turn: number;
}

export interface DialogState {
  /** The question being asked, or null once the dialog is over. */
  stepId: string | null;
  /** Tries used on the current question beyond the first. */
  retries: number;
  stepsRun: number;
  turn: number;
  /** The outcome of the last question answered or given up on. */
  result: OutboundIvrResult;
  /** Set when a run stopped for a reason the callee did not cause. */
  error: string | null;
  /** The last instructions, answered again to a duplicate callback. */
  instructions: Instructions;
}
