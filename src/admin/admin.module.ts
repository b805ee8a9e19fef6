import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { ChannelsModule } from '../channels/channels.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { AdminController } from './admin.controller.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { AdminService } from './admin.service.js';

@Module({
  imports: [AuthModule, ChannelsModule, WorkspacesModule],
  controllers: [AdminController],
  providers: [AdminKeyGuard, AdminService],
})
export class AdminModule {}
