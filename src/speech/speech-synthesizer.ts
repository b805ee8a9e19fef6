import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { AudioConverter, TELEPHONY_WAV } from '../media/audio-converter.js';
import { MediaStorage, type StoredMedia } from '../storage/media-storage.js';
import { removeQuietly, StoragePaths } from '../storage/storage-paths.js';
import { EspeakThread } from './espeak-thread.js';
import { InvalidTtsText, MAX_TTS_TEXT_LENGTH } from './speech.errors.js';
import { TtsVoice } from './tts-voice.js';

const VARIANT: Record<TtsVoice, string> = { [TtsVoice.Female]: 'f3', [TtsVoice.Male]: 'm3' };
const ARABIC_SCRIPT = /[\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF]/;

/**
 * Offline text-to-speech with eSpeak NG (WebAssembly, from npm): the speech is converted to the
 * telephony WAV (8 kHz mono 16-bit) and stored as the workspace's audio. Safe to call concurrently.
 */
@Injectable()
export class SpeechSynthesizer implements OnModuleDestroy {
  private readonly espeak = new EspeakThread();

  constructor(
    private readonly storage: MediaStorage,
    private readonly paths: StoragePaths,
    private readonly converter: AudioConverter,
  ) {}

  async synthesize(workspaceId: string, text: string, voice: TtsVoice): Promise<StoredMedia> {
    if (text.trim().length === 0 || text.length > MAX_TTS_TEXT_LENGTH) throw InvalidTtsText();
    const speech = this.paths.tempFile('.wav');
    const telephony = this.paths.tempFile('.wav');
    try {
      await this.espeak.speak(text, voiceName(text, voice), speech);
      const wav = await this.converter.toTelephonyWav(speech, telephony);
      return await this.storage.save(
        workspaceId,
        { path: telephony, move: true },
        {
          fileName: `speech-${TtsVoice[voice].toLowerCase()}.wav`,
          contentType: TELEPHONY_WAV.contentType,
          mediaType: 'audio',
          durationMs: wav.durationMs,
        },
      );
    } finally {
      await Promise.all([removeQuietly(speech), removeQuietly(telephony)]);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.espeak.stop();
  }
}

/** eSpeak NG reads one language per voice: Arabic text gets the Arabic voice, anything else English. */
function voiceName(text: string, voice: TtsVoice): string {
  return `${ARABIC_SCRIPT.test(text) ? 'ar' : 'en-us'}+${VARIANT[voice]}`;
}
