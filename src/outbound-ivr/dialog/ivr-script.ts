/**
 * What a call plays and asks, with every prompt resolved to an audio URL (speech already
 * synthesized). A single-question request and a saved flow both become one of these, so one
 * dialog engine runs both. Stored on the call record when the call is placed.
 */
export interface ScriptOption {
  digit: string;
  description: string;
  nextStepId: string | null;
  responseUrl: string | null;
}

export interface PlayStep {
  id: string;
  type: 'Play';
  audioUrl: string;
  nextStepId: string | null;
}

export interface QuestionStep {
  id: string;
  type: 'Question';
  audioUrl: string;
  /** How the question reads in answers: its text, or its audio URL. */
  prompt: string;
  options: ScriptOption[];
  maxAudioRetries: number;
  inputTimeoutMs: number;
  noInputStepId: string | null;
  invalidInputStepId: string | null;
}

export interface HangupStep {
  id: string;
  type: 'Hangup';
  audioUrl: string | null;
}

export type ScriptStep = PlayStep | QuestionStep | HangupStep;

export interface IvrScript {
  startStepId: string;
  steps: Record<string, ScriptStep>;
  /** Recorded calls: played first when the call is answered, before anything else (absent on scripts older than recording). */
  announcementUrl?: string | null;
  /** Played once when the call is answered. */
  welcomeUrl: string | null;
  /** LeaveMessage: what is played to an answering machine after its beep (absent on scripts older than machine detection). */
  voicemailUrl?: string | null;
  /** Played after a valid digit whose option has no response file. */
  successUrl: string | null;
  /** Played after an invalid digit, and when retries run out on one. */
  failedUrl: string | null;
  digitTimeoutMs: number;
}

/** A run stops after this many steps, whatever the flow says (loops). */
export const MAX_STEPS_PER_CALL = 50;
