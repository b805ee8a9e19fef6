import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';
import type { IvrScript } from './ivr-script.js';

const QUESTION = 'question';

/** The script of a single-question request: welcome, the question, and its success/failed files. */
export function scriptOfRequest(request: OutboundIvrRequestEntity, promptUrl: string): IvrScript {
  return {
    startStepId: QUESTION,
    steps: {
      [QUESTION]: {
        id: QUESTION,
        type: 'Question',
        audioUrl: promptUrl,
        prompt: request.ttsText ?? promptUrl,
        options: request.options.map((o) => ({
          digit: o.digit,
          description: o.description,
          nextStepId: null,
          responseUrl: o.responseMessageFileUrl,
        })),
        maxAudioRetries: request.maxAudioRetries,
        inputTimeoutMs: request.inputTimeoutMs,
        noInputStepId: null,
        invalidInputStepId: null,
      },
    },
    welcomeUrl: request.welcomeMessageFileUrl,
    successUrl: request.successMessageFileUrl,
    failedUrl: request.failedMessageFileUrl,
    digitTimeoutMs: request.digitTimeoutMs,
  };
}
