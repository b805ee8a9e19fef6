import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../channels/channels.service.js';
import type { Limits } from './channel-limits.entity.js';
import { ChannelLimitsService } from './channel-limits.service.js';
import { SendGovernor, type ChannelUsage } from './send-governor.service.js';

/** The governor's routes: a workspace reads its channel's tiers and usage; an operator sets the tiers. */
@Injectable()
export class GovernorService {
  constructor(
    private readonly channels: ChannelsService,
    private readonly limits: ChannelLimitsService,
    private readonly governor: SendGovernor,
  ) {}

  /** Another workspace's channel, or an unknown one, is a 404. */
  async usage(workspaceId: string, channelId: string): Promise<ChannelUsage> {
    return this.governor.usage(await this.channels.get(workspaceId, channelId));
  }

  async put(channelId: string, changes: Partial<Limits>): Promise<ChannelUsage> {
    const { channel } = await this.limits.put(channelId, changes);
    return this.governor.usage(channel);
  }
}
