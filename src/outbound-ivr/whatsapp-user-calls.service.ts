import { Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelConfigInvalid } from '../channels/channels.errors.js';
import { ChannelsService } from '../channels/channels.service.js';
import { CALLBACK_PERMISSION_MS, WhatsAppCallPermissions } from '../contacts/whatsapp-call-permissions.service.js';
import { flowForUserCall } from '../voice/whatsapp-calls/call-hours.js';
import { callerIds, isUserCallOffer, type CallSignal, type UserCallOffer } from '../voice/whatsapp-calls/call-signals.js';
import { OutboundIvrService } from './outbound-ivr.service.js';
import { WhatsAppVoiceProvider } from './providers/whatsapp-voice.provider.js';

/**
 * Calls from WhatsApp users (a `connect` webhook carrying Meta's SDP offer, API.md §15): in call
 * hours the channel's inbound flow answers them, outside them its after-hours flow; each becomes an
 * inbound IVR record whose job a worker runs (answer, dialog, hang-up). With no flow for the
 * moment (or the flow gone), the call is rejected at once, so the user is not left ringing.
 */
@Injectable()
export class WhatsAppUserCalls {
  private readonly logger = new Logger(WhatsAppUserCalls.name);

  constructor(
    private readonly ivr: OutboundIvrService,
    private readonly whatsApp: WhatsAppVoiceProvider,
    private readonly channels: ChannelsService,
    private readonly permissions: WhatsAppCallPermissions,
  ) {}

  /** Takes the user-initiated calls among `signals`; never throws (Meta's webhook is answered regardless). */
  async handle(channel: Channel, signals: CallSignal[]): Promise<void> {
    for (const offer of signals.filter(isUserCallOffer)) {
      await this.grantCallback(channel, offer);
      if (await this.answerWithFlow(channel, offer)) continue;
      await this.whatsApp
        .reject(channel, offer.callId)
        .catch((err: unknown) =>
          this.logger.warn(`Could not reject WhatsApp call ${offer.callId} on channel ${channel.id}: ${(err as Error).message}`),
        );
    }
  }

  /**
   * With callback permission on the number, Meta lets the business call a user back for 7 days
   * after the user called (API.md §15): kept as their permission, and calls waiting for it go.
   */
  private async grantCallback(channel: Channel, offer: UserCallOffer): Promise<void> {
    const caller = callerOf(offer);
    if (!channel.whatsAppCalling?.callbackPermission || !caller) return;
    const at = new Date();
    const answer = { granted: true, permanent: false, expiresAt: new Date(at.getTime() + CALLBACK_PERMISSION_MS), at };
    await this.permissions
      .answer(channel.workspaceId, channel.id, caller, answer)
      .then((changed) => (changed ? this.ivr.permissionAnswered(channel.workspaceId, channel.id, caller, true) : 0))
      .catch((err: unknown) => this.logger.warn(`Callback permission from ${caller} not recorded: ${(err as Error).message}`));
  }

  /**
   * The sandbox's stand-in for a WhatsApp user calling a sandbox number: answered exactly as a
   * real call is (the flow for the hour; none: rejected), the sandbox then plays the caller (the
   * channel's `voice.sandbox` digits, or silence). The record's id, or null when it was rejected.
   */
  async simulate(channelId: string, from: string): Promise<{ callId: string; outboundIvrRequestId: string | null }> {
    // The operator's route names a channel of any workspace (a named unscoped read).
    const channel = await this.channels.findUnscopedForOperator(channelId);
    if (!channel.hasWhatsApp || channel.whatsAppProvider !== 'sandbox')
      throw ChannelConfigInvalid(`Channel '${channelId}' is not a sandbox WhatsApp number, so it simulates no calls.`, 'channelId');
    if (!channel.hasWhatsAppCalling)
      throw ChannelConfigInvalid(
        `Calling is not enabled on channel '${channelId}': PUT /v1/channels/${channelId}/calling first.`,
        'channelId',
      );
    const callId = `SBwacid.${randomBytes(18).toString('base64url')}`;
    const flowId = flowForUserCall(channel.whatsAppCalling, new Date());
    if (!flowId) return { callId, outboundIvrRequestId: null };
    const id = await this.ivr.recordWhatsAppUserCall(channel, { callId, caller: from, offerSdp: null, flowId });
    return { callId, outboundIvrRequestId: id };
  }

  /** Records the call for the flow that answers it now; false when there is none to answer with. */
  private async answerWithFlow(channel: Channel, offer: UserCallOffer): Promise<boolean> {
    const flowId = flowForUserCall(channel.whatsAppCalling, new Date());
    if (!flowId) return false;
    // A `from` that is no valid number is kept as Meta gave it.
    const caller = callerOf(offer) ?? (offer.from || null);
    if (!caller) {
      this.logger.warn(`WhatsApp call ${offer.callId} on channel ${channel.id} names no caller (no number, no user id): rejected`);
      return false;
    }
    try {
      await this.ivr.recordWhatsAppUserCall(channel, { callId: offer.callId, caller, offerSdp: offer.sdp, flowId });
      return true;
    } catch (err) {
      this.logger.warn(
        `WhatsApp call ${offer.callId} on channel ${channel.id} could not be answered with flow ${flowId}: ${(err as Error).message}`,
      );
      return false;
    }
  }
}

/**
 * Who calls: their number (E.164) when Meta shares it, else their business-scoped user id (`from_user_id`,
 * a user with a username who hides their number, 2026); null when the webhook names neither.
 */
function callerOf(offer: UserCallOffer): string | null {
  const { phoneNumber, userId } = callerIds(offer);
  return phoneNumber ?? userId;
}
