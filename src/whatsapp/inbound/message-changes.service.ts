import { Injectable, Logger } from '@nestjs/common';
import { ChannelsService } from '../../channels/channels.service.js';
import type { ConversationEvent } from '../../conversations/conversation-event.entity.js';
import { MessageEvents, type MessageContentPatch } from '../../conversations/message-events.service.js';
import { EventDirection } from '../../conversations/conversation-enums.js';
import { Outbox } from '../../queue/outbox.service.js';
import { MediaStorage } from '../../storage/media-storage.js';
import { WebhookKind } from '../../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../../webhooks/webhook-publisher.js';
import type { MessageChange } from './cloud-webhook.js';
import { inboundContent } from './inbound-content.js';
import { InboundService } from './inbound.service.js';
import { eventWebhookPayload } from '../message-webhook.js';
import { inTransaction } from '../../database/transactions.js';

/**
 * Edits and deletions of earlier WhatsApp messages (API.md §14): by the customer, or by the business
 * in the WhatsApp Business app (echoes). An edit changes the original's body and keeps the old one
 * in `editHistory`; a deletion removes its body and stored file and keeps `revokedAt`. Either sends
 * the original's `whatsapp.message` webhook with `action` Edited or Revoked. A change of a message
 * never stored is recorded as an Unsupported message with the raw change.
 */
@Injectable()
export class MessageChangesService {
  private readonly logger = new Logger(MessageChangesService.name);

  constructor(
    private readonly events: MessageEvents,
    private readonly channels: ChannelsService,
    private readonly inbound: InboundService,
    private readonly storage: MediaStorage,
    private readonly webhooks: WebhookPublisher,
    private readonly outbox: Outbox,
  ) {}

  async apply(workspaceId: string, channelId: string, change: MessageChange): Promise<void> {
    const discarded = await inTransaction(() => this.applyWithin(workspaceId, channelId, change));
    if (discarded) await this.discardFile(workspaceId, discarded);
  }

  /**
   * {@link apply} in the caller's transaction (the intake records a batch of messages and edits in
   * one). Returns the stored file a deletion leaves behind: the caller discards it once committed.
   */
  async applyWithin(workspaceId: string, channelId: string, change: MessageChange): Promise<string | null> {
    const events = this.events;
    // The original's recording holds the same lock: an edit waits for a message still being recorded.
    await events.lockSources(channelId, [change.originalMessageId]);
    const original = await events.findWhatsAppMessage(workspaceId, channelId, change.originalMessageId);
    // A customer changes what they sent, the business (an echo) what it sent.
    const direction = change.unmatched.businessAppEcho ? EventDirection.Outbound : EventDirection.Inbound;
    if (!original || original.direction !== direction) {
      await this.inbound.receiveMany(workspaceId, channelId, [change.unmatched]);
      return null;
    }
    const changed = change.kind === 'edit' ? edited(original, change) : revoked(original, change);
    if (!changed) return null; // applied before (a redelivery), or a change of a deleted message
    await events.rewriteContent(workspaceId, original.id, changed.patch);
    const channel = await this.channels.getRecent(workspaceId, channelId, 'whatsapp');
    const payload = eventWebhookPayload({ ...original, ...changed.patch }, change.kind === 'edit' ? 'Edited' : 'Revoked');
    await this.webhooks.publish([
      { workspaceId, kind: WebhookKind.WhatsAppMessage, targetUrl: channel.webhookUrl ?? null, payload: { ...payload } },
    ]);
    return changed.discardFileId;
  }

  /** Deletes a revoked message's file, once the deletion committed; should that fail, the event no longer points at it anyway. */
  async discardFile(workspaceId: string, fileId: string): Promise<void> {
    await this.storage
      .discard(workspaceId, fileId)
      .catch((err: unknown) => this.logger.warn({ err }, `Deleting the file ${fileId} of a revoked WhatsApp message failed`));
  }
}

interface Changed {
  patch: MessageContentPatch;
  discardFileId: string | null;
}

function edited(original: ConversationEvent, change: MessageChange): Changed | null {
  const history = original.editHistory ?? [];
  if (original.revokedAt || history.some((version) => version.editId === change.providerMessageId)) return null;
  const now = change.replacement ? inboundContent(change.replacement, null, null) : null;
  const caption = change.replacement?.media?.caption;
  return {
    patch: {
      body: now ? now.body : original.body,
      editHistory: [...history, { body: original.body, editedAt: change.at, editId: change.providerMessageId }],
      ...(caption !== undefined && original.attachment && 'caption' in original.attachment
        ? { attachment: { ...original.attachment, caption } }
        : {}),
    },
    discardFileId: null,
  };
}

function revoked(original: ConversationEvent, change: MessageChange): Changed | null {
  if (original.revokedAt) return null;
  const fileId = typeof original.attachment?.mediaFileId === 'string' ? original.attachment.mediaFileId : null;
  return {
    patch: {
      body: null,
      // What the message was stays (its type); what it said or showed goes.
      attachment: { messageType: original.attachment?.messageType ?? 'Unsupported' },
      location: null,
      durationOrSize: null,
      editHistory: null,
      revokedAt: new Date(change.at),
    },
    discardFileId: fileId,
  };
}
