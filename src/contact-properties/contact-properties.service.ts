import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import { newId } from '../common/id.js';
import { isUniqueViolation } from '../database/pg-errors.js';
import { ContactPropertyDefinition, ContactPropertyType, type SelectOption } from './contact-property-definition.entity.js';
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
  private readonly definitions: Repository<ContactPropertyDefinition>;

  constructor(private readonly dataSource: DataSource) {
    this.definitions = dataSource.getRepository(ContactPropertyDefinition);
  }

  list(workspaceId: string): Promise<ContactPropertyDefinition[]> {
    return this.definitions.find({ where: { workspaceId }, order: { creationTime: 'ASC', id: 'ASC' } });
  }

  /** Pass `manager` inside a transaction: a second pooled connection per request can starve the pool. */
  async get(workspaceId: string, id: string, manager?: EntityManager): Promise<ContactPropertyDefinition> {
    const definition = await (manager?.getRepository(ContactPropertyDefinition) ?? this.definitions).findOne({
      where: { id, workspaceId },
    });
    if (!definition) throw PropertyNotFound(id);
    return definition;
  }

  /** Definitions by id, of this workspace only (unknown or foreign ids are simply absent). */
  async getMany(workspaceId: string, ids: string[]): Promise<Map<string, ContactPropertyDefinition>> {
    if (ids.length === 0) return new Map();
    const found = await this.definitions.find({ where: { workspaceId, id: In(ids) } });
    return new Map(found.map((d) => [d.id, d]));
  }

  async create(workspaceId: string, actorId: string, input: CreateContactPropertyDto): Promise<ContactPropertyDefinition> {
    const name = input.name.trim();
    const options = input.type === ContactPropertyType.Select ? uniqueOptions(input.selectOptions) : [];
    if (input.type !== ContactPropertyType.Select && input.selectOptions?.length) {
      throw InvalidPropertyDefinition('selectOptions are only for Select properties.', 'selectOptions');
    }
    const definition = this.definitions.create({
      id: newId(),
      workspaceId,
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

  async update(workspaceId: string, id: string, actorId: string, input: UpdateContactPropertyDto): Promise<ContactPropertyDefinition> {
    return this.dataSource.transaction(async (manager) => {
      const definition = await manager.findOne(ContactPropertyDefinition, {
        where: { id, workspaceId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!definition) throw PropertyNotFound(id);
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
          const [{ count }] = (await manager.query(
            `SELECT count(DISTINCT contact_id)::int AS count FROM contact_property_values
              WHERE workspace_id = $1 AND property_definition_id = $2 AND select_value = ANY($3)`,
            [workspaceId, id, removed],
          )) as Array<{ count: number }>;
          if (count > 0) throw SelectOptionInUse(removed, count);
        }
        definition.selectOptions = next;
      }
      definition.lastModifierId = actorId;
      return this.saveUnique(definition, manager.getRepository(ContactPropertyDefinition));
    });
  }

  /** Deletes the definition; its values on contacts go with it (ON DELETE CASCADE). */
  async remove(workspaceId: string, id: string): Promise<void> {
    const result = await this.definitions.delete({ id, workspaceId });
    if (!result.affected) throw PropertyNotFound(id);
  }

  private async saveUnique(definition: ContactPropertyDefinition, repo = this.definitions): Promise<ContactPropertyDefinition> {
    try {
      return await repo.save(definition);
    } catch (err) {
      if (isUniqueViolation(err)) throw PropertyNameTaken(definition.name);
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
