import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import { WhatsAppRateCard } from './rate-card.entity.js';

@Injectable()
export class WhatsAppRateCardsRepository extends WorkspaceScopedRepository<WhatsAppRateCard> {
  constructor(@InjectRepository(WhatsAppRateCard) repository: Repository<WhatsAppRateCard>) {
    super(repository);
  }

  /** Sets the workspace's rate card (replacing the one it had) in one statement; the stored card. */
  async put(workspaceId: string, currency: string, perCategory: Record<string, number>): Promise<WhatsAppRateCard> {
    const [row] = await this.sql<{ currency: string; per_category: Record<string, number>; updated_at: Date }>(
      workspaceId,
      `INSERT INTO whatsapp_rate_cards (workspace_id, currency, per_category, updated_at) VALUES ($1, $2, $3::jsonb, now())
       ON CONFLICT (workspace_id) DO UPDATE SET currency = EXCLUDED.currency, per_category = EXCLUDED.per_category, updated_at = now()
         WHERE whatsapp_rate_cards.workspace_id = $1
       RETURNING currency, per_category, updated_at`,
      [currency, perCategory],
    );
    return { workspaceId, currency: row.currency, perCategory: row.per_category, updatedAt: row.updated_at };
  }
}
