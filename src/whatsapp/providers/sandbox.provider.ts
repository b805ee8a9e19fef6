import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Channel } from '../../channels/channel.entity.js';
import { newId } from '../../common/id.js';
import { SandboxMessage } from '../sandbox-message.entity.js';
import type { SendOutcome, WhatsAppProvider } from './whatsapp-provider.js';

/** No network: keeps the exact Cloud API request body for operators to read, and answers with a message id. */
@Injectable()
export class SandboxWhatsAppProvider implements WhatsAppProvider {
  constructor(private readonly dataSource: DataSource) {}

  async send(channel: Channel, request: Record<string, unknown>): Promise<SendOutcome> {
    const providerMessageId = `wamid.sandbox.${newId()}`;
    await this.dataSource
      .getRepository(SandboxMessage)
      .insert({ id: newId(), workspaceId: channel.workspaceId, channelId: channel.id, providerMessageId, request: request as object });
    return { kind: 'sent', providerMessageId };
  }
}
