import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspaceUser } from './workspace-user.entity.js';
import { Workspace } from './workspace.entity.js';
import { WorkspaceUsersRepository } from './workspace-users.repository.js';
import { WorkspacesController } from './workspaces.controller.js';
import { WorkspacesRepository } from './workspaces.repository.js';
import { WorkspacesService } from './workspaces.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Workspace, WorkspaceUser])],
  controllers: [WorkspacesController],
  providers: [WorkspacesService, WorkspacesRepository, WorkspaceUsersRepository],
  exports: [WorkspacesService],
})
export class WorkspacesModule {}
