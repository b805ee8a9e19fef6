import type { TtsVoice } from '../speech/tts-voice.js';

/** What the call worker needs of speech synthesis: a stored WAV of the text, by URL. */
export abstract class SpeechPort {
  abstract synthesize(workspaceId: string, text: string, voice: TtsVoice): Promise<{ url: string }>;
}
