import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import type { Principal } from '../auth/principal.js';
import { newId } from '../common/id.js';
import { Contact, ContactType } from './contact.entity.js';
import { ContactHistoryEntry } from './contact-history-entry.entity.js';
import { builtInChanges } from './contact-history.js';
import type { ImportVCardsResultDto } from './dto/import-vcards.dto.js';
import { parseVCard, type ParsedCard } from './vcard-import.js';

const CHUNK = 1000;

/** Create Bulk Contacts vCards: parse every card, then insert in multi-row chunks, never row by row. */
@Injectable()
export class ContactImportService {
  constructor(private readonly dataSource: DataSource) {}

  async importVCards(principal: Principal, sources: string[]): Promise<ImportVCardsResultDto> {
    const errors: Array<{ index: number; message: string }> = [];
    const parsed: Array<{ index: number; card: ParsedCard }> = [];
    sources.forEach((source, index) => {
      const result = parseVCard(source);
      if (result.ok) parsed.push({ index, card: result.card });
      else errors.push({ index, message: result.message });
    });
    const idByPhone = new Map<string, string>();
    let createdCount = 0;
    await this.dataSource.transaction(async (manager) => {
      for (let start = 0; start < parsed.length; start += CHUNK) {
        // One row per number: a number repeated in the request counts as existing after its first card.
        const chunk = parsed.slice(start, start + CHUNK).filter(({ card }) => !idByPhone.has(card.phoneNumber));
        const unique = [...new Map(chunk.map((p) => [p.card.phoneNumber, p.card])).values()];
        const now = new Date();
        const rows = unique.map((card) => ({
          id: newId(),
          workspaceId: principal.workspaceId,
          ...card,
          contactType: ContactType.Individual,
          customFields: null,
          creatorId: principal.serviceAccountId,
          lastModifierId: principal.serviceAccountId,
          creationTime: now,
          lastModificationTime: now,
        }));
        const inserted = rows.length
          ? ((await manager.createQueryBuilder().insert().into(Contact).values(rows).orIgnore().returning(['id', 'phone_number']).execute())
              .raw as Array<{
              id: string;
              phone_number: string;
            }>)
          : [];
        const created = new Set(inserted.map((row) => row.id));
        createdCount += created.size;
        for (const row of inserted) idByPhone.set(row.phone_number, row.id);
        const history = rows
          .filter((row) => created.has(row.id))
          .flatMap((row) =>
            builtInChanges({}, row).map((change) => ({
              id: newId(),
              workspaceId: principal.workspaceId,
              contactId: row.id,
              creatorId: principal.serviceAccountId,
              creationTime: now,
              ...change,
            })),
          );
        for (let h = 0; h < history.length; h += CHUNK) await manager.insert(ContactHistoryEntry, history.slice(h, h + CHUNK));
        const existing = unique.map((card) => card.phoneNumber).filter((phone) => !idByPhone.has(phone));
        if (existing.length) {
          const found = await manager.find(Contact, {
            select: { id: true, phoneNumber: true },
            where: { workspaceId: principal.workspaceId, phoneNumber: In(existing) },
          });
          for (const contact of found) idByPhone.set(contact.phoneNumber, contact.id);
        }
      }
    });
    return {
      totalCount: sources.length,
      createdCount,
      existingCount: parsed.length - createdCount,
      failedCount: errors.length,
      errors,
      contactIds: parsed.map(({ card }) => idByPhone.get(card.phoneNumber)!),
    };
  }
}
