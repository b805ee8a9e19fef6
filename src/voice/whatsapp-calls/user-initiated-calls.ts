import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { AppConfig } from '../../config/app-config.js';
import type { CallSignal } from './call-signals.js';
import { rejectCall } from './graph-calling.js';

/**
 * Calls from WhatsApp users (a `connect` webhook carrying Meta's SDP offer). A number with no
 * inbound or after-hours flow has nothing to answer them with: they are rejected at once (API.md
 * §15), so the user is not left ringing. Answering with a flow (`pre_accept`, `accept`) is not built
 * yet: such calls are left to ring out.
 */
@Injectable()
export class UserInitiatedCalls {
  private readonly logger = new Logger(UserInitiatedCalls.name);

  constructor(
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
  ) {}

  /** Rejects the user-initiated calls among `signals` that the channel has no flow for; never throws (the webhook is answered regardless). */
  async handle(channel: Channel, signals: CallSignal[]): Promise<void> {
    const offers = signals.filter((s) => s.kind === 'connect' && s.sdpType === 'offer');
    if (offers.length === 0) return;
    const calling = channel.whatsAppCalling;
    if (calling?.inboundFlowId || calling?.afterHoursFlowId) return;
    const number = {
      graphUrl: this.config.whatsapp.graphUrl,
      phoneNumberId: channel.whatsAppPhoneNumberId!,
      accessToken: this.channels.whatsAppCredentials(channel).accessToken,
    };
    for (const offer of offers) {
      await rejectCall(number, offer.callId).catch((err: unknown) =>
        this.logger.warn(`Could not reject WhatsApp call ${offer.callId} on channel ${channel.id}: ${(err as Error).message}`),
      );
    }
  }
}
