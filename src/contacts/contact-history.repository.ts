import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { ContactHistoryEntry } from './contact-history-entry.entity.js';
import type { HistoryChange } from './contact-history.js';

/** A built-in field a new contact was created with, for {@link ContactHistoryRepository.recordCreations}. */
export interface CreationEntry {
  contactId: string;
  propertyName: string;
  newValue: string | null;
}

/**
 * The import's history in one statement: INSERT … SELECT FROM unnest() (arrays as parameters).
 * `$1` is the workspace.
 */
const INSERT_CREATIONS_SQL = `
  INSERT INTO contact_history (id, workspace_id, contact_id, property_name, property_definition_id, old_value, new_value, creation_time, creator_id)
  SELECT u.id, $1, u.contact_id, u.name, NULL, NULL, u.new_value, $2, $3
    FROM unnest($4::uuid[], $5::uuid[], $6::varchar[], $7::text[]) AS u(id, contact_id, name, new_value)`;

@Injectable()
export class ContactHistoryRepository extends WorkspaceScopedRepository<ContactHistoryEntry> {
  constructor(@InjectRepository(ContactHistoryEntry) repository: Repository<ContactHistoryEntry>) {
    super(repository);
  }

  /**
   * Records changes of one contact by `actorId` (null: the service itself) in one insert. Each entry is stamped now, so call
   * it after taking the contact's row lock: the order of entries is then the order of the changes
   * (the database's now() would be the time each waiting transaction began).
   */
  async record(workspaceId: string, contactId: string, actorId: string | null, changes: readonly HistoryChange[]): Promise<void> {
    this.scope(workspaceId);
    if (changes.length === 0) return;
    await this.repository.insert(
      changes.map((change) => ({ id: newId(), workspaceId, contactId, creatorId: actorId, creationTime: new Date(), ...change })),
    );
  }

  /** Records the built-in fields of many new contacts, created by `actorId` at `at`, in one statement ({@link INSERT_CREATIONS_SQL}). */
  async recordCreations(workspaceId: string, actorId: string, at: Date, entries: readonly CreationEntry[]): Promise<void> {
    this.scope(workspaceId);
    await this.manager.query(INSERT_CREATIONS_SQL, [
      workspaceId,
      at,
      actorId,
      entries.map(() => newId()),
      entries.map((e) => e.contactId),
      entries.map((e) => e.propertyName),
      entries.map((e) => e.newValue),
    ]);
  }

  /** A page of a contact's history, newest first (the id breaks ties). */
  page(workspaceId: string, contactId: string, skip: number, take: number): Promise<PagedResult<ContactHistoryEntry>> {
    const qb = this.queryBuilder(workspaceId, 'h')
      .andWhere('h.contact_id = :contactId', { contactId })
      .orderBy('h.creation_time', 'DESC')
      .addOrderBy('h.id', 'DESC');
    return pageWithTotal(qb, skip, take);
  }
}
