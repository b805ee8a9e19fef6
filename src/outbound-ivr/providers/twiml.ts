import VoiceResponse from 'twilio/lib/twiml/VoiceResponse.js';
import type { Instructions } from '../dialog/dialog-state.js';

/**
 * TwiML for one exchange: play the files, then either gather one digit around the prompt or hang
 * up. The gather posts to `gatherUrl` with the turn number, even when nothing was pressed; the
 * redirect after it does the same on providers that ignore `actionOnEmptyResult`.
 */
export function renderInstructions(instructions: Instructions, gatherUrl: string): string {
  const response = new VoiceResponse();
  for (const url of instructions.play) response.play(url);
  const { gather } = instructions;
  if (!gather) {
    response.hangup();
    return response.toString();
  }
  const action = `${gatherUrl}?turn=${instructions.turn}`;
  response
    .gather({
      numDigits: 1,
      // Twilio ends a gather on '#' by default, which would make '#' unselectable.
      finishOnKey: '',
      timeout: Math.ceil(gather.timeoutMs / 1000),
      action,
      method: 'POST',
      actionOnEmptyResult: true,
    })
    .play(gather.promptUrl);
  response.redirect({ method: 'POST' }, action);
  return response.toString();
}

/** A spoken greeting, then hang up: the answer to inbound calls. */
export function renderGreeting(text: string): string {
  const response = new VoiceResponse();
  response.say(text);
  response.hangup();
  return response.toString();
}
