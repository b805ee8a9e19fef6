import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { SpeechSynthesizer } from './speech-synthesizer.js';

/** Text-to-speech for IVR prompts, stored as workspace media. */
@Module({ imports: [StorageModule, MediaModule], providers: [SpeechSynthesizer], exports: [SpeechSynthesizer] })
export class SpeechModule {}
