import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { inTransaction } from '../database/transactions.js';
import { ContactType } from './contact.entity.js';
import { ContactHistoryRepository } from './contact-history.repository.js';
import { builtInChanges } from './contact-history.js';
import { ContactsRepository } from './contacts.repository.js';
import type { ImportVCardsResultDto } from './dto/import-vcards.dto.js';
import { parseVCard, type ParsedCard } from './vcard-import.js';

/** Create Bulk Contacts vCards: parse every card, then insert them all with set-based statements. */
@Injectable()
export class ContactImportService {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly historyEntries: ContactHistoryRepository,
  ) {}

  async importVCards(principal: Principal, sources: string[]): Promise<ImportVCardsResultDto> {
    const workspaceId = principal.workspaceId;
    const errors: Array<{ index: number; message: string }> = [];
    const parsed: Array<{ index: number; card: ParsedCard }> = [];
    sources.forEach((source, index) => {
      const result = parseVCard(source);
      if (result.ok) parsed.push({ index, card: result.card });
      else errors.push({ index, message: result.message });
    });
    // One row per number: a number repeated in the request counts as existing after its first card.
    const unique = [...new Map(parsed.map((p) => [p.card.phoneNumber, p.card])).values()];
    const idByPhone = new Map<string, string>();
    let createdCount = 0;
    await inTransaction(async () => {
      const contacts = this.contacts;
      const now = new Date();
      // Set-based: one statement for all the cards' contacts and one for their history, not a statement per row.
      const inserted = await contacts.insertManyWhereNumberFree(workspaceId, principal.serviceAccountId, now, unique);
      createdCount = inserted.size;
      for (const [phone, id] of inserted) idByPhone.set(phone, id);
      const history = unique
        .filter((card) => idByPhone.has(card.phoneNumber))
        .flatMap((card) =>
          builtInChanges({}, { ...card, contactType: ContactType.Individual }).map((change) => ({
            contactId: idByPhone.get(card.phoneNumber)!,
            propertyName: change.propertyName,
            newValue: change.newValue,
          })),
        );
      await this.historyEntries.recordCreations(workspaceId, principal.serviceAccountId, now, history);
      const existing = unique.map((card) => card.phoneNumber).filter((phone) => !idByPhone.has(phone));
      if (existing.length) {
        for (const [phone, id] of await contacts.findIdsByPhones(workspaceId, existing)) idByPhone.set(phone, id);
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
