import { Injectable } from '@nestjs/common';
import { ChannelNotFound } from '../channels/channels.errors.js';
import { ChannelsService } from '../channels/channels.service.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { validHubSignature, type CloudWebhookNotification } from './cloud-webhook.js';
import { InvalidSignature, VerificationFailed } from './whatsapp.errors.js';

/** A webhook notification as Meta posts it: the exact bytes (what the signature covers), the signature header and the parsed body. */
export interface SignedNotification {
  rawBody: Buffer | undefined;
  signature: string | undefined;
  body: unknown;
}

/**
 * Meta's side of a cloud-api channel: the subscription handshake and the webhook notifications,
 * checked against the channel's verify token and app secret, then queued for the worker.
 */
@Injectable()
export class WhatsAppWebhooksService {
  constructor(
    private readonly channels: ChannelsService,
    private readonly outbox: Outbox,
  ) {}

  /** The subscription handshake: the challenge to echo when the verify token is the channel's. */
  async verifySubscription(channelId: string, query: Record<string, string>): Promise<string> {
    const channel = await this.channels.findUnscopedForProviderCallback(channelId);
    const { verifyToken } = this.channels.whatsAppCredentials(channel);
    if (query['hub.mode'] !== 'subscribe' || !verifyToken || query['hub.verify_token'] !== verifyToken) throw VerificationFailed();
    return query['hub.challenge'] ?? '';
  }

  /** A notification signed with the channel's app secret: queued for the worker (it is answered at once). */
  async accept(channelId: string, notification: SignedNotification): Promise<void> {
    const channel = await this.channels.findUnscopedForProviderCallback(channelId);
    if (!channel.hasWhatsApp) throw ChannelNotFound(channelId);
    const { appSecret } = this.channels.whatsAppCredentials(channel);
    if (!notification.rawBody || !validHubSignature(notification.rawBody, notification.signature, appSecret)) throw InvalidSignature();
    await this.outbox.transaction((tx) =>
      tx.enqueue([
        {
          jobName: JobName.ProcessWhatsAppWebhook,
          workspaceId: channel.workspaceId,
          payload: { channelId: channel.id, notification: notification.body as CloudWebhookNotification },
        },
      ]),
    );
  }
}
