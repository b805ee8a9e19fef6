import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ChannelsModule } from '../channels/channels.module.js';
import { WhatsAppModule } from '../whatsapp/whatsapp.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { DemoSeeder } from './demo-seeder.service.js';

@Module({
  imports: [AuthModule, ChannelsModule, WorkspacesModule, WhatsAppModule],
  providers: [DemoSeeder],
})
export class DemoSeedModule {}
