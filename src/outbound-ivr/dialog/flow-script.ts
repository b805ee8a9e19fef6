import type { FlowDefinition, FlowPrompt, FlowStep } from '../../outbound-ivr-flows/flow-definition.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';
import type { IvrScript, ScriptStep } from './ivr-script.js';

/** Turns a prompt into the URL to play; speech is synthesized by the caller. */
export type PromptResolver = (prompt: FlowPrompt) => Promise<string | null>;

/** The script of a call running a saved flow version, with the request's welcome, success and failed files. */
export async function scriptOfFlow(request: OutboundIvrRequestEntity, flow: FlowDefinition, resolve: PromptResolver): Promise<IvrScript> {
  const steps: Record<string, ScriptStep> = {};
  for (const step of flow.steps) steps[step.id] = await toScriptStep(step, resolve);
  return {
    startStepId: flow.startStepId,
    steps,
    welcomeUrl: request.welcomeMessageFileUrl,
    successUrl: request.successMessageFileUrl,
    failedUrl: request.failedMessageFileUrl,
    digitTimeoutMs: request.digitTimeoutMs,
  };
}

async function toScriptStep(step: FlowStep, resolve: PromptResolver): Promise<ScriptStep> {
  const audioUrl = await resolve(step.props);
  switch (step.type) {
    case 'Play':
      return { id: step.id, type: 'Play', audioUrl: audioUrl ?? '', nextStepId: step.props.nextStepId };
    case 'Hangup':
      return { id: step.id, type: 'Hangup', audioUrl };
    case 'Question':
      return {
        id: step.id,
        type: 'Question',
        audioUrl: audioUrl ?? '',
        prompt: step.props.ttsText ?? audioUrl ?? '',
        options: step.props.options.map((o) => ({
          digit: o.digit,
          description: o.description,
          nextStepId: o.nextStepId,
          responseUrl: o.responseMessageFileUrl,
        })),
        maxAudioRetries: step.props.maxAudioRetries,
        inputTimeoutMs: step.props.inputTimeoutMs,
        noInputStepId: step.props.noInputStepId,
        invalidInputStepId: step.props.invalidInputStepId,
      };
  }
}
