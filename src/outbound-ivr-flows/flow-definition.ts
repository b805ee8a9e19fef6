import type { IvrDigit } from '../outbound-ivr/dto/ivr-option.dto.js';
import type { MachineDetection } from '../outbound-ivr/ivr-enums.js';
import { TtsVoice } from '../speech/tts-voice.js';

/**
 * One immutable version of an Outbound IVR flow as the call worker runs it: plain data (stored as
 * jsonb), already validated as a graph, with every default applied and absent values `null`.
 */
export interface FlowDefinition {
  startStepId: string;
  steps: FlowStep[];
  /** What the flow's calls do when a machine answers (API.md §14); absent on versions saved before it: Off. */
  machineDetection?: MachineDetection;
  /** LeaveMessage: exactly one of the two is the voicemail. */
  voicemailAudioFileUrl?: string | null;
  voicemailTtsText?: string | null;
  /** Whether the flow's calls are recorded (API.md §16); null or absent: as the channel says. */
  record?: boolean | null;
}

export interface FlowVersion {
  flowId: string;
  version: number;
  definition: FlowDefinition;
}

export const FLOW_STEP_TYPES = ['Play', 'Question', 'Hangup'] as const;
export type FlowStepType = (typeof FLOW_STEP_TYPES)[number];

export type FlowStep =
  | { id: string; type: 'Play'; props: PlayProps }
  | { id: string; type: 'Question'; props: QuestionProps }
  | { id: string; type: 'Hangup'; props: HangupProps };

/** What a step plays: a file, or text to synthesize. Play and Question have exactly one of the two. */
export interface FlowPrompt {
  audioFileUrl: string | null;
  ttsText: string | null;
  ttsVoice: TtsVoice;
}

/** Plays the prompt, then goes to `nextStepId`, or hangs up when it is `null`. */
export interface PlayProps extends FlowPrompt {
  nextStepId: string | null;
}

export interface QuestionOption {
  digit: IvrDigit;
  description: string;
  /** Where the call goes after this key; `null` ends the call once the response has played. */
  nextStepId: string | null;
  /** Played when this key is pressed; `null` means the call's success file, if any. */
  responseMessageFileUrl: string | null;
}

/**
 * Plays the prompt and gathers one digit for `inputTimeoutMs`. Silence or an invalid digit asks
 * again, up to `maxAudioRetries` more times; after that the call goes to `noInputStepId` /
 * `invalidInputStepId`, or ends with NoInput / InvalidInput when they are `null`.
 */
export interface QuestionProps extends FlowPrompt {
  options: QuestionOption[];
  maxAudioRetries: number;
  inputTimeoutMs: number;
  noInputStepId: string | null;
  invalidInputStepId: string | null;
}

/** Hangs up, after an optional goodbye (both `audioFileUrl` and `ttsText` may be `null`). */
export type HangupProps = FlowPrompt;

export const FLOW_DEFAULTS = { maxAudioRetries: 2, inputTimeoutMs: 6000, ttsVoice: TtsVoice.Female } as const;

export const MAX_FLOW_STEPS = 100;

/** Step ids: 1-64 letters, digits, `_` or `-`. */
export const STEP_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
