import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { WorkspaceUserDto } from './dto/workspace-user.dto.js';
import { WorkspacesService } from './workspaces.service.js';

@ApiTags('Workspace API')
@ApiBearerAuth()
@Controller('v1/workspaces')
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Get('users')
  @ApiOperation({
    summary: 'Get Workspace Users',
    description: "The workspace's users and AI agents; their `userId` is what conversations are assigned to.",
  })
  async users(@CurrentWorkspace() workspaceId: string): Promise<WorkspaceUserDto[]> {
    return (await this.workspaces.listUsers(workspaceId)).map(WorkspaceUserDto.from);
  }
}
