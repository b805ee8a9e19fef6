import { Module } from '@nestjs/common';
import { AudioConverter } from './audio-converter.js';
import { Ffmpeg } from './ffmpeg.js';

/** Media processing with the ffmpeg binary that ships through npm. */
@Module({ providers: [Ffmpeg, AudioConverter], exports: [Ffmpeg, AudioConverter] })
export class MediaModule {}
