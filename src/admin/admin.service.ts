import { Injectable } from '@nestjs/common';
import { ServiceAccountsService, type CreatedServiceAccount } from '../auth/service-accounts.service.js';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import type { ChannelConfigDto } from '../channels/dto/channel-config.dto.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';

/** What the operator's routes do beyond one call: things created in a workspace, which must exist (404 otherwise). */
@Injectable()
export class AdminService {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly serviceAccounts: ServiceAccountsService,
    private readonly channels: ChannelsService,
  ) {}

  async createServiceAccount(workspaceId: string, name: string): Promise<CreatedServiceAccount> {
    await this.workspaces.get(workspaceId);
    return this.serviceAccounts.create(workspaceId, name);
  }

  async createChannel(workspaceId: string, config: ChannelConfigDto): Promise<Channel> {
    await this.workspaces.get(workspaceId);
    return this.channels.create(workspaceId, config);
  }
}
