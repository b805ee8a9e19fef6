import { Module } from '@nestjs/common';
import { MediaModule } from '../media/media.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { SupportController } from './support.controller.js';
import { SupportService } from './support.service.js';

/** Support API: image, video, PDF and audio uploads. */
@Module({ imports: [StorageModule, MediaModule], controllers: [SupportController], providers: [SupportService] })
export class SupportModule {}
