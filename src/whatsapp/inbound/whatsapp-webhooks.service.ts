import { Injectable, Logger } from '@nestjs/common';
import { ChannelNotFound } from '../../channels/channels.errors.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { validHubSignature } from './cloud-webhook.js';
import { WhatsAppIntake } from './whatsapp-intake.service.js';
import { InvalidSignature, VerificationFailed } from '../whatsapp.errors.js';
import { CallSignalBus } from '../../voice/whatsapp-calls/call-signal-bus.js';
import { readCallSignals } from '../../voice/whatsapp-calls/call-signals.js';
import { WhatsAppUserCalls } from '../../outbound-ivr/whatsapp-user-calls.service.js';

/** A webhook notification as Meta posts it: the exact bytes (what the signature covers), the signature header and the parsed body. */
export interface SignedNotification {
  rawBody: Buffer | undefined;
  signature: string | undefined;
  body: unknown;
}

/**
 * Meta's side of a cloud-api channel: the subscription handshake and the webhook notifications,
 * checked against the channel's verify token and app secret, then written to the intake for the
 * workers (one short INSERT, shared with concurrent requests; the channel comes from a short-lived cache).
 */
@Injectable()
export class WhatsAppWebhooksService {
  private readonly logger = new Logger(WhatsAppWebhooksService.name);

  constructor(
    private readonly channels: ChannelsService,
    private readonly intake: WhatsAppIntake,
    private readonly callSignals: CallSignalBus,
    private readonly userCalls: WhatsAppUserCalls,
  ) {}

  /** The subscription handshake: the challenge to echo when the verify token is the channel's. */
  async verifySubscription(channelId: string, query: Record<string, string>): Promise<string> {
    const channel = await this.channels.findUnscopedForProviderCallback(channelId);
    const { verifyToken } = this.channels.whatsAppCredentials(channel);
    if (query['hub.mode'] !== 'subscribe' || !verifyToken || query['hub.verify_token'] !== verifyToken) throw VerificationFailed();
    return query['hub.challenge'] ?? '';
  }

  /** A notification signed with the channel's app secret: written to the intake for the workers (it is answered at once). */
  async accept(channelId: string, notification: SignedNotification): Promise<void> {
    const channel = await this.channels.findRecentForProviderCallback(channelId);
    if (!channel.hasWhatsApp) throw ChannelNotFound(channelId);
    const { appSecret } = this.channels.whatsAppCredentials(channel);
    if (!notification.rawBody || !validHubSignature(notification.rawBody, notification.signature, appSecret)) throw InvalidSignature();
    // A call's signals go straight to the worker running it (API.md §15); the notification is kept in the intake as any other.
    // The signature proves only this channel: a signal naming another number (maybe another workspace's) is dropped.
    const signals = readCallSignals(notification.body).filter((signal) => signal.phoneNumberId === channel.whatsAppPhoneNumberId);
    for (const signal of signals) await this.callSignals.publish(signal);
    // Not awaited: Meta's webhook is answered at once; the Graph request follows.
    if (signals.length > 0)
      this.userCalls.handle(channel, signals).catch((err: unknown) => this.logger.warn({ err }, 'User-initiated calls not handled'));
    await this.intake.write({ workspaceId: channel.workspaceId, channelId: channel.id, body: notification.rawBody.toString('utf8') });
  }
}
