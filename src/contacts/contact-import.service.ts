import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import type { Principal } from '../auth/principal.js';
import { newId } from '../common/id.js';
import { Contact, ContactType } from './contact.entity.js';
import { builtInChanges } from './contact-history.js';
import type { ImportVCardsResultDto } from './dto/import-vcards.dto.js';
import { parseVCard, type ParsedCard } from './vcard-import.js';

/** Create Bulk Contacts vCards: parse every card, then insert them all with set-based statements. */
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
    // One row per number: a number repeated in the request counts as existing after its first card.
    const unique = [...new Map(parsed.map((p) => [p.card.phoneNumber, p.card])).values()];
    const idByPhone = new Map<string, string>();
    let createdCount = 0;
    await this.dataSource.transaction(async (manager) => {
      const now = new Date();
      const ids = unique.map(() => newId());
      // Set-based: one INSERT … SELECT FROM unnest() for all cards (arrays as parameters), not a statement per row.
      const inserted = (await manager.query(
        `INSERT INTO contacts (id, workspace_id, name, phone_number, contact_type, email, company, position, creator_id, last_modifier_id, creation_time, last_modification_time)
         SELECT u.id, $1, u.name, u.phone, ${ContactType.Individual}, u.email, u.company, u.position, $2, $2, $3, $3
           FROM unnest($4::uuid[], $5::varchar[], $6::varchar[], $7::varchar[], $8::varchar[], $9::varchar[]) AS u(id, name, phone, email, company, position)
         ON CONFLICT (workspace_id, phone_number) DO NOTHING
         RETURNING id, phone_number`,
        [
          principal.workspaceId,
          principal.serviceAccountId,
          now,
          ids,
          unique.map((c) => c.name),
          unique.map((c) => c.phoneNumber),
          unique.map((c) => c.email),
          unique.map((c) => c.company),
          unique.map((c) => c.position),
        ],
      )) as Array<{ id: string; phone_number: string }>;
      createdCount = inserted.length;
      for (const row of inserted) idByPhone.set(row.phone_number, row.id);
      const history = unique
        .filter((card) => idByPhone.has(card.phoneNumber))
        .flatMap((card) =>
          builtInChanges({}, { ...card, contactType: ContactType.Individual }).map((change) => ({
            contactId: idByPhone.get(card.phoneNumber)!,
            ...change,
          })),
        );
      await manager.query(
        `INSERT INTO contact_history (id, workspace_id, contact_id, property_name, property_definition_id, old_value, new_value, creation_time, creator_id)
         SELECT u.id, $1, u.contact_id, u.name, NULL, NULL, u.new_value, $2, $3
           FROM unnest($4::uuid[], $5::uuid[], $6::varchar[], $7::text[]) AS u(id, contact_id, name, new_value)`,
        [
          principal.workspaceId,
          now,
          principal.serviceAccountId,
          history.map(() => newId()),
          history.map((h) => h.contactId),
          history.map((h) => h.propertyName),
          history.map((h) => h.newValue),
        ],
      );
      const existing = unique.map((card) => card.phoneNumber).filter((phone) => !idByPhone.has(phone));
      if (existing.length) {
        const found = await manager.find(Contact, {
          select: { id: true, phoneNumber: true },
          where: { workspaceId: principal.workspaceId, phoneNumber: In(existing) },
        });
        for (const contact of found) idByPhone.set(contact.phoneNumber, contact.id);
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
