import { Injectable } from '@nestjs/common';
import { newId } from '../common/id.js';
import { Transactional } from '../database/transactions.js';
import { pgError } from '../database/pg-errors.js';
import { type ContactPropertyDefinition, ContactPropertyType, type SelectOption } from './contact-property-definition.entity.js';
import { ContactPropertyDefinitionsRepository } from './contact-property-definitions.repository.js';
import {
  InvalidPropertyDefinition,
  PropertyNameTaken,
  PropertyNotFound,
  PropertyTypeImmutable,
  SelectOptionInUse,
} from './contact-properties.errors.js';
import type { CreateContactPropertyDto, SelectOptionDto, UpdateContactPropertyDto } from './dto/contact-property.dto.js';

/** `Lead Status` → `lead_status`. */
export function propertyKey(name: string): string {
  const key = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return key || `property_${Buffer.from(name).toString('hex').slice(0, 16)}`;
}

/** Workspace-defined contact properties. Every lookup is by workspace and id. */
@Injectable()
export class ContactPropertiesService {
  constructor(private readonly definitions: ContactPropertyDefinitionsRepository) {}

  list(workspaceId: string): Promise<ContactPropertyDefinition[]> {
    return this.definitions.list(workspaceId);
  }

  async get(workspaceId: string, id: string): Promise<ContactPropertyDefinition> {
    return this.getWith(workspaceId, id);
  }

  /** Definitions by id, of this workspace only (unknown or foreign ids are simply absent). */
  async getMany(workspaceId: string, ids: string[]): Promise<Map<string, ContactPropertyDefinition>> {
    if (ids.length === 0) return new Map();
    const found = await this.definitions.findByIds(workspaceId, ids);
    return new Map(found.map((d) => [d.id, d]));
  }

  async create(workspaceId: string, actorId: string, input: CreateContactPropertyDto): Promise<ContactPropertyDefinition> {
    const name = input.name.trim();
    const options = input.type === ContactPropertyType.Select ? uniqueOptions(input.selectOptions) : [];
    if (input.type !== ContactPropertyType.Select && input.selectOptions?.length) {
      throw InvalidPropertyDefinition('selectOptions are only for Select properties.', 'selectOptions');
    }
    const definition = this.definitions.create(workspaceId, {
      id: newId(),
      name,
      normalizedName: name.toLowerCase(),
      key: propertyKey(name),
      type: input.type,
      isRequired: input.isRequired ?? false,
      selectOptions: options,
      creatorId: actorId,
      lastModifierId: actorId,
    });
    return this.saveUnique(definition);
  }

  @Transactional()
  async update(workspaceId: string, id: string, actorId: string, input: UpdateContactPropertyDto): Promise<ContactPropertyDefinition> {
    const definition = await this.getWith(workspaceId, id, { lock: true });
    if (input.type !== undefined && input.type !== definition.type) throw PropertyTypeImmutable();
    if (input.name !== undefined) {
      definition.name = input.name.trim();
      definition.normalizedName = definition.name.toLowerCase();
      definition.key = propertyKey(definition.name);
    }
    if (input.isRequired !== undefined) definition.isRequired = input.isRequired;
    if (input.selectOptions !== undefined) {
      if (definition.type !== ContactPropertyType.Select)
        throw InvalidPropertyDefinition('selectOptions are only for Select properties.', 'selectOptions');
      const next = uniqueOptions(input.selectOptions);
      const removed = definition.selectOptions.map((o) => o.value).filter((value) => !next.some((o) => o.value === value));
      if (removed.length > 0) {
        const count = await this.definitions.contactsHoldingOptions(workspaceId, id, removed);
        if (count > 0) throw SelectOptionInUse(removed, count);
      }
      definition.selectOptions = next;
    }
    definition.lastModifierId = actorId;
    return this.saveUnique(definition);
  }

  /** Deletes the definition; its values on contacts go with it (ON DELETE CASCADE). */
  async remove(workspaceId: string, id: string): Promise<void> {
    if ((await this.definitions.delete(workspaceId, { id })) === 0) throw PropertyNotFound(id);
  }

  private async getWith(workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<ContactPropertyDefinition> {
    const definition = await this.definitions.findById(workspaceId, id, options);
    if (!definition) throw PropertyNotFound(id);
    return definition;
  }

  private async saveUnique(definition: ContactPropertyDefinition): Promise<ContactPropertyDefinition> {
    try {
      return await this.definitions.save(definition.workspaceId, definition);
    } catch (err) {
      if (pgError.is(err, 'unique')) throw PropertyNameTaken(definition.name);
      throw err;
    }
  }
}

/** Select options: at least one, values unique. */
function uniqueOptions(options: SelectOptionDto[] | undefined): SelectOption[] {
  if (!options || options.length === 0) throw InvalidPropertyDefinition('A Select property needs at least one option.', 'selectOptions');
  const seen = new Set<string>();
  for (const option of options) {
    if (seen.has(option.value)) throw InvalidPropertyDefinition(`Select option '${option.value}' is listed twice.`, 'selectOptions');
    seen.add(option.value);
  }
  return options.map((o) => ({ value: o.value, color: o.color ?? null }));
}
