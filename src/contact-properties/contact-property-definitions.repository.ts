import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { ContactPropertyDefinition } from './contact-property-definition.entity.js';

@Injectable()
export class ContactPropertyDefinitionsRepository extends WorkspaceScopedRepository<ContactPropertyDefinition> {
  constructor(@InjectRepository(ContactPropertyDefinition) repository: Repository<ContactPropertyDefinition>) {
    super(repository);
  }

  /** The workspace's definitions, oldest first (the id breaks ties). */
  list(workspaceId: string): Promise<ContactPropertyDefinition[]> {
    return this.selectEntities(workspaceId, 'ORDER BY creation_time, id');
  }

  /** How many contacts hold one of these options of a Select property (contact_property_values references the definition). */
  async contactsHoldingOptions(workspaceId: string, definitionId: string, options: readonly string[]): Promise<number> {
    const [{ count }] = await this.sql<{ count: number }>(
      workspaceId,
      `SELECT count(DISTINCT contact_id)::int AS count FROM contact_property_values
        WHERE workspace_id = $1 AND property_definition_id = $2 AND select_value = ANY($3)`,
      [definitionId, options],
    );
    return count;
  }
}
