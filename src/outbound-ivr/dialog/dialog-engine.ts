import { OutboundIvrResult, type AnsweredBy } from '../ivr-enums.js';
import type { StoredIvrAnswer } from '../outbound-ivr-request.entity.js';
import type { DialogState, Instructions } from './dialog-state.js';
import { MAX_STEPS_PER_CALL, type IvrScript, type QuestionStep } from './ivr-script.js';

export type DialogInput =
  /** `answeredBy`: who the provider's machine detection says answered (absent without detection). */
  { kind: 'answered'; answeredBy?: AnsweredBy | null } | { kind: 'digit'; digit: string } | { kind: 'silence' };

export interface DialogTurn {
  state: DialogState;
  /** Set when this turn answered a question. */
  answer: StoredIvrAnswer | null;
}

/**
 * The IVR conversation as a pure function: the script, where the call stands and what the callee
 * did give the next state and what to play. Both voice providers drive calls through it.
 */
export function converse(script: IvrScript, previous: DialogState | null, input: DialogInput, now: Date): DialogTurn {
  if (input.kind === 'answered' || !previous) {
    const state = fresh();
    const play = [script.announcementUrl, script.welcomeUrl].filter((url): url is string => !!url);
    return { state: run(script, state, script.startStepId, play), answer: null };
  }
  const state: DialogState = { ...previous, turn: previous.turn + 1 };
  const step = previous.stepId ? script.steps[previous.stepId] : undefined;
  if (!step || step.type !== 'Question') return { state: finish(state, []), answer: null };

  if (input.kind === 'digit') {
    const option = step.options.find((o) => o.digit === input.digit);
    if (option) {
      const answer: StoredIvrAnswer = {
        stepId: step.id,
        prompt: step.prompt,
        digit: option.digit,
        description: option.description,
        answeredAt: now.toISOString(),
      };
      const response = option.responseUrl ?? script.successUrl;
      state.result = OutboundIvrResult.DigitPressed;
      return { state: run(script, state, option.nextStepId, response ? [response] : []), answer };
    }
    const failed = script.failedUrl ? [script.failedUrl] : [];
    return { state: retryOrGiveUp(script, state, step, OutboundIvrResult.InvalidInput, step.invalidInputStepId, failed), answer: null };
  }
  return { state: retryOrGiveUp(script, state, step, OutboundIvrResult.NoInput, step.noInputStepId, []), answer: null };
}

/** Whether the dialog has ended: the provider hangs up after playing the last instructions. */
export function isOver(state: DialogState): boolean {
  return state.instructions.gather === null;
}

function fresh(): DialogState {
  return {
    stepId: null,
    retries: 0,
    stepsRun: 0,
    turn: 0,
    result: OutboundIvrResult.None,
    error: null,
    instructions: { play: [], gather: null, turn: 0 },
  };
}

function retryOrGiveUp(
  script: IvrScript,
  state: DialogState,
  step: QuestionStep,
  failure: OutboundIvrResult,
  fallbackStepId: string | null,
  play: string[],
): DialogState {
  if (state.retries < step.maxAudioRetries) {
    state.retries += 1;
    return ask(script, state, step, play);
  }
  state.result = failure;
  return run(script, state, fallbackStepId, play);
}

/** Plays steps from `stepId` until one asks a question or the script ends. */
function run(script: IvrScript, state: DialogState, stepId: string | null, play: string[]): DialogState {
  let next = stepId;
  while (next) {
    if (state.stepsRun >= MAX_STEPS_PER_CALL) {
      state.error = `The flow was stopped after ${MAX_STEPS_PER_CALL} steps.`;
      return finish(state, play);
    }
    const step = script.steps[next];
    state.stepsRun += 1;
    if (!step) {
      state.error = `The flow has no step '${next}'.`;
      return finish(state, play);
    }
    if (step.type === 'Question') {
      state.retries = 0;
      return ask(script, state, step, play);
    }
    if (step.audioUrl) play.push(step.audioUrl);
    next = step.type === 'Play' ? step.nextStepId : null;
  }
  return finish(state, play);
}

function ask(script: IvrScript, state: DialogState, step: QuestionStep, play: string[]): DialogState {
  const instructions: Instructions = {
    play,
    gather: { promptUrl: step.audioUrl, timeoutMs: step.inputTimeoutMs, digitTimeoutMs: script.digitTimeoutMs },
    turn: state.turn,
  };
  return { ...state, stepId: step.id, instructions };
}

function finish(state: DialogState, play: string[]): DialogState {
  return { ...state, stepId: null, instructions: { play, gather: null, turn: state.turn } };
}
