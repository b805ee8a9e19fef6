import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Channel } from '../../channels/channel.entity.js';
import { newId } from '../../common/id.js';
import { Outbox } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import { statusNotification } from '../cloud-webhook.js';
import { SandboxMessage } from '../sandbox-message.entity.js';
import type { SendOutcome, WhatsAppProvider } from './whatsapp-provider.js';

const STATUS_STEP_MS = 300;

/**
 * No network: keeps the exact Cloud API request body for operators to read, answers with a message
 * id, then plays out `sent`, `delivered` and `read` through the same webhook pipeline a real
 * provider feeds.
 */
@Injectable()
export class SandboxWhatsAppProvider implements WhatsAppProvider {
  constructor(
    private readonly dataSource: DataSource,
    private readonly outbox: Outbox,
  ) {}

  async send(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<SendOutcome> {
    const providerMessageId = `wamid.sandbox.${newId()}`;
    const recipient = String(request.to ?? '');
    const jobs = await this.dataSource.transaction(async (manager) => {
      await manager.insert(SandboxMessage, {
        id: newId(),
        workspaceId: channel.workspaceId,
        channelId: channel.id,
        providerMessageId,
        request: request as object,
      });
      return this.outbox.write(
        manager,
        (['sent', 'delivered', 'read'] as const).map((status, i) => ({
          jobName: JobName.ProcessWhatsAppWebhook,
          workspaceId: channel.workspaceId,
          runAt: new Date(Date.now() + STATUS_STEP_MS * (i + 1)),
          payload: {
            channelId: channel.id,
            notification: statusNotification(providerMessageId, status, recipient) as Record<string, unknown>,
          },
        })),
      );
    });
    this.outbox.pushCommitted(jobs);
    return { kind: 'sent', providerMessageId };
  }
}
