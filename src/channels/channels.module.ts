import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Channel } from './channel.entity.js';
import { ChannelsController } from './channels.controller.js';
import { ChannelsRepository } from './channels.repository.js';
import { SandboxMachinesAdminController } from './sandbox-machines-admin.controller.js';
import { ChannelsService } from './channels.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Channel])],
  controllers: [ChannelsController, SandboxMachinesAdminController],
  providers: [ChannelsService, ChannelsRepository],
  exports: [ChannelsService],
})
export class ChannelsModule {}
