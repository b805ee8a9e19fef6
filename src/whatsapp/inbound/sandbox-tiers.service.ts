import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../../channels/channels.service.js';
import { MetaTiers } from '../../governor/meta-tiers.service.js';
import type { SandboxQualityUpdateDto } from '../dto/sandbox-quality-update.dto.js';
import { NotASandboxChannel } from '../whatsapp.errors.js';
import { readTierUpdates } from './tier-updates.js';

/**
 * The sandbox's stand-in for Meta's `phone_number_quality_update`: the notification Meta would send
 * about the channel's number, read and applied on the same path as a real one (the tiers change at
 * once, the business shares the limit, `channel.quality_updated` goes out).
 */
@Injectable()
export class SandboxTiers {
  constructor(
    private readonly channels: ChannelsService,
    private readonly tiers: MetaTiers,
  ) {}

  async qualityUpdate(channelId: string, input: SandboxQualityUpdateDto): Promise<void> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    if (channel.whatsAppProvider !== 'sandbox') {
      throw NotASandboxChannel("Tier webhooks are played only for sandbox channels; Meta sends cloud-api channels' own.");
    }
    const notification = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: channel.whatsAppWabaId ?? '',
          time: Math.floor(Date.now() / 1000),
          changes: [
            {
              field: 'phone_number_quality_update',
              value: {
                ...(channel.phoneNumber ? { display_phone_number: channel.phoneNumber.replace(/^\+/, '') } : {}),
                event: input.event,
                ...(input.messagingLimit ? { max_daily_conversations_per_business: input.messagingLimit } : {}),
                ...(input.qualityRating ? { quality_rating: input.qualityRating } : {}),
              },
            },
          ],
        },
      ],
    };
    for (const update of readTierUpdates(notification)) await this.tiers.apply(channel.workspaceId, channel.id, update);
  }
}
