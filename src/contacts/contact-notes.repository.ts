import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newId } from '../common/id.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { ContactNote } from './contact-note.entity.js';

/** What a new note says and who wrote it. */
export interface NewContactNote {
  text: string;
  creatorName: string | null;
  creatorId: string;
}

@Injectable()
export class ContactNotesRepository extends WorkspaceScopedRepository<ContactNote> {
  constructor(@InjectRepository(ContactNote) repository: Repository<ContactNote>) {
    super(repository);
  }

  /** Appends a note to the contact (one insert). */
  async add(workspaceId: string, contactId: string, note: NewContactNote): Promise<void> {
    this.scope(workspaceId);
    await this.repository.insert({
      id: newId(),
      workspaceId,
      contactId,
      text: note.text,
      creatorName: note.creatorName,
      creatorId: note.creatorId,
      lastModifierId: note.creatorId,
    });
  }

  /** The notes of these contacts, oldest first (the id breaks ties), in one query. */
  ofContacts(workspaceId: string, contactIds: readonly string[]): Promise<ContactNote[]> {
    return this.selectEntities(workspaceId, 'AND contact_id = ANY($2) ORDER BY creation_time, id', [contactIds]);
  }
}
