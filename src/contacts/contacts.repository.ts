import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, In, type QueryDeepPartialEntity, type Repository, type SelectQueryBuilder } from 'typeorm';
import { ContactPropertyType } from '../contact-properties/contact-property-type.js';
import { newId } from '../common/id.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { parseSorting } from '../common/paging/sorting.js';
import { insertIgnoring, likePattern } from '../database/sql-helpers.js';
import { MissingWorkspaceError, WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { hasCriteria, type CheckedContactCriteria, type PropertyCondition } from './contact-criteria.js';
import { CONSENT_KINDS, CONSENT_STATUS_COLUMN, type ConsentKind, type ConsentStatus } from './consent.js';
import { Contact, ContactType } from './contact.entity.js';
import { SearchOperator } from './dto/search-contacts.dto.js';
import { whatsAppMatchesAmong, type WhatsAppIds } from './whatsapp-ids.js';

const SORTABLE = { name: 'c.name', creationtime: 'c.creation_time', lastmodificationtime: 'c.last_modification_time' };
const DEFAULT_SORT = { column: 'c.creation_time', direction: 'DESC' as const };

const COMPARISON: Partial<Record<SearchOperator, string>> = {
  [SearchOperator.Equals]: '=',
  [SearchOperator.GreaterThan]: '>',
  [SearchOperator.GreaterThanOrEqual]: '>=',
  [SearchOperator.LessThan]: '<',
  [SearchOperator.LessThanOrEqual]: '<=',
};
const COLUMN: Record<ContactPropertyType, string> = {
  [ContactPropertyType.Text]: 'text_value',
  [ContactPropertyType.Number]: 'number_value',
  [ContactPropertyType.Select]: 'select_value',
  [ContactPropertyType.Date]: 'date_value',
};

/** The WhatsApp ids a message or a send names a contact by. */
/** A contact a vCard describes, for {@link ContactsRepository.insertManyWhereNumberFree}. */
export type ImportedContact = Pick<Contact, 'name' | 'phoneNumber' | 'email' | 'company' | 'position'>;

/**
 * The import's one statement for all cards: INSERT … SELECT FROM unnest() (arrays as parameters),
 * numbers the workspace already has skipped. `$1` is the workspace.
 */
const INSERT_IMPORTED_SQL = `
  INSERT INTO contacts (id, workspace_id, name, phone_number, contact_type, email, company, position, creator_id, last_modifier_id, creation_time, last_modification_time)
  SELECT u.id, $1, u.name, u.phone, ${ContactType.Individual}, u.email, u.company, u.position, $2, $2, $3, $3
    FROM unnest($4::uuid[], $5::varchar[], $6::varchar[], $7::varchar[], $8::varchar[], $9::varchar[]) AS u(id, name, phone, email, company, position)
  ON CONFLICT (workspace_id, phone_number) DO NOTHING
  RETURNING id, phone_number`;

@Injectable()
export class ContactsRepository extends WorkspaceScopedRepository<Contact> {
  constructor(@InjectRepository(Contact) repository: Repository<Contact>) {
    super(repository);
  }

  /** Inserts a new contact of the workspace (one statement); a number the workspace has is a unique violation. */
  async insert(workspaceId: string, contact: Contact): Promise<void> {
    this.ownedBy(workspaceId, contact);
    await this.repository.insert(contact as QueryDeepPartialEntity<Contact>);
  }

  /**
   * Inserts a new contact unless the workspace has one with its number, or with any other id of it
   * that is unique (BSUID, parent BSUID, username), in one statement; true when inserted.
   */
  async insertWhereNumberFree(workspaceId: string, contact: Contact): Promise<boolean> {
    this.ownedBy(workspaceId, contact);
    return (await insertIgnoring(this.manager, Contact, [contact as QueryDeepPartialEntity<Contact>])).length > 0;
  }

  /**
   * Inserts the contacts whose numbers the workspace does not have yet, in one statement
   * ({@link INSERT_IMPORTED_SQL}), created by `actorId` at `at`; the id of each one inserted, by number.
   */
  async insertManyWhereNumberFree(
    workspaceId: string,
    actorId: string,
    at: Date,
    contacts: readonly ImportedContact[],
  ): Promise<Map<string, string>> {
    this.scope(workspaceId);
    const inserted = await this.manager.query<Array<{ id: string; phone_number: string }>>(INSERT_IMPORTED_SQL, [
      workspaceId,
      actorId,
      at,
      contacts.map(() => newId()),
      contacts.map((c) => c.name),
      contacts.map((c) => c.phoneNumber),
      contacts.map((c) => c.email),
      contacts.map((c) => c.company),
      contacts.map((c) => c.position),
    ]);
    return new Map(inserted.map((row) => [row.phone_number, row.id]));
  }

  /** The workspace's contact with this number. */
  findByPhone(workspaceId: string, phoneNumber: string): Promise<Contact | null> {
    return this.findOne(workspaceId, { phoneNumber });
  }

  /** {@link findByPhone}, its id only. */
  async findIdByPhone(workspaceId: string, phoneNumber: string): Promise<string | undefined> {
    return (await this.repository.findOne({ where: this.scope(workspaceId, { phoneNumber }), select: { id: true } }))?.id;
  }

  /**
   * The workspace's contacts a WhatsApp sender's ids point at, in one query: the one with the
   * number, and the one with the BSUID (else the parent BSUID). They may be the same contact.
   */
  async findWhatsAppMatches(workspaceId: string, ids: WhatsAppIds): Promise<{ byPhone: Contact | null; byUser: Contact | null }> {
    return whatsAppMatchesAmong(await this.findWhatsAppCandidates(workspaceId, [ids]), ids);
  }

  /** Every contact of the workspace that one of these senders' ids points at, in one query (see {@link whatsAppMatchesAmong}). */
  async findWhatsAppCandidates(workspaceId: string, senders: readonly WhatsAppIds[]): Promise<Contact[]> {
    const values = (pick: (ids: WhatsAppIds) => string | null | undefined) => [
      ...new Set(senders.map(pick).filter((v): v is string => !!v)),
    ];
    const [phones, userIds, parentUserIds] = [values((s) => s.phoneNumber), values((s) => s.userId), values((s) => s.parentUserId)];
    if (phones.length + userIds.length + parentUserIds.length === 0) return [];
    return this.queryBuilder(workspaceId, 'c')
      .andWhere(
        new Brackets((w) => {
          if (phones.length) w.orWhere('c.phone_number = ANY(:phones)', { phones });
          if (userIds.length) w.orWhere('c.whats_app_user_id = ANY(:userIds)', { userIds });
          if (parentUserIds.length) w.orWhere('c.whats_app_parent_user_id = ANY(:parentUserIds)', { parentUserIds });
        }),
      )
      .getMany();
  }

  /**
   * Serialises, until the caller's transaction ends, the work of every
   * transaction on these WhatsApp ids of the workspace: creating, completing or merging the
   * contacts they name. Taken in one order, so two transactions never wait on each other in a circle.
   */
  async lockWhatsAppIds(workspaceId: string, ids: WhatsAppIds): Promise<void> {
    this.scope(workspaceId);
    const keys = [ids.phoneNumber && `p:${ids.phoneNumber}`, ids.userId && `u:${ids.userId}`].filter((k): k is string => !!k).sort();
    for (const key of keys) await this.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`contacts:${workspaceId}:${key}`]);
  }

  /** Takes the username (or parent BSUID) away from any other contact of the workspace that still holds it: the latest holder keeps it. */
  async release(workspaceId: string, field: 'whatsAppUsername' | 'whatsAppParentUserId', value: string, exceptId: string): Promise<void> {
    const column = field === 'whatsAppUsername' ? 'whats_app_username' : 'whats_app_parent_user_id';
    await this.sql(workspaceId, `UPDATE contacts SET ${column} = NULL WHERE workspace_id = $1 AND ${column} = $2 AND id <> $3`, [
      value,
      exceptId,
    ]);
  }

  /** The consent of the workspace's contact with this number; Unknown when there is none. */
  async consentByPhone(workspaceId: string, phoneNumber: string, kind: ConsentKind): Promise<ConsentStatus> {
    // Plain SQL: every call and marketing send to a number asks this, and a find's query building costs more than the read.
    const [found] = await this.sql<{ status: ConsentStatus }>(
      workspaceId,
      `SELECT ${CONSENT_STATUS_COLUMN[kind]} AS status FROM contacts WHERE workspace_id = $1 AND phone_number = $2 LIMIT 1`,
      [phoneNumber],
    );
    return found?.status ?? 'Unknown';
  }

  /** The ids of the workspace's contacts with these numbers, by number. */
  async findIdsByPhones(workspaceId: string, phoneNumbers: readonly string[]): Promise<Map<string, string>> {
    const found = await this.repository.find({
      select: { id: true, phoneNumber: true },
      where: this.scope(workspaceId, { phoneNumber: In([...phoneNumbers]) }),
    });
    return new Map(found.map((contact) => [contact.phoneNumber!, contact.id]));
  }

  /**
   * A page of the workspace's contacts matching the criteria, in the order `criteria.sorting` asks
   * (newest first by default; the id breaks ties), with the total. Without criteria the total is
   * the workspace's maintained count ({@link totalInWorkspace}), not a count of a million rows.
   */
  async page(workspaceId: string, criteria: CheckedContactCriteria, paging: PagedRequestDto): Promise<PagedResult<Contact>> {
    const qb = this.matching(workspaceId, criteria);
    const sort = parseSorting(criteria.sorting, SORTABLE, DEFAULT_SORT);
    qb.orderBy(sort.column, sort.direction).addOrderBy('c.id', sort.direction);
    if (hasCriteria(criteria)) return pageWithTotal(qb, paging.skipCount, paging.maxResultCount);
    const [items, totalCount] = await Promise.all([
      qb.skip(paging.skipCount).take(paging.maxResultCount).getMany(),
      this.totalInWorkspace(workspaceId),
    ]);
    return { totalCount, items };
  }

  /** The ids of the workspace's contacts matching the criteria, as a query to embed (unordered). */
  matchingIds(workspaceId: string, criteria: CheckedContactCriteria): SelectQueryBuilder<Contact> {
    return this.matching(workspaceId, criteria).select('c.id');
  }

  /**
   * The workspace's contacts matching the criteria (and, with `contactIds`, among those), selecting
   * `workspace_id, id, phone_number, whats_app_user_id`: a query to embed in a set-based statement (a campaign's audience).
   */
  matchingAudience(workspaceId: string, criteria: CheckedContactCriteria, contactIds?: readonly string[]): SelectQueryBuilder<Contact> {
    const qb = this.matching(workspaceId, criteria)
      .select('c.workspace_id', 'workspace_id')
      .addSelect('c.id', 'id')
      .addSelect('c.phone_number', 'phone_number')
      .addSelect('c.whats_app_user_id', 'whats_app_user_id');
    if (contactIds) qb.andWhere('c.id = ANY(:contactIds::uuid[])', { contactIds });
    return qb;
  }

  /**
   * The number of the workspace's contacts: the sum of its `contact_counts` shards, which a
   * trigger on `contacts` keeps (see the migration).
   */
  async totalInWorkspace(workspaceId: string): Promise<number> {
    const [row] = await this.sql<{ total: number }>(
      workspaceId,
      'SELECT coalesce(sum(total), 0)::int AS total FROM contact_counts WHERE workspace_id = $1',
    );
    return row.total;
  }

  /** The workspace's contacts (alias `c`) narrowed by the list and search criteria of API.md §5. */
  private matching(workspaceId: string, criteria: CheckedContactCriteria): SelectQueryBuilder<Contact> {
    const qb = this.queryBuilder(workspaceId, 'c');
    if (criteria.filter?.trim()) {
      const pattern = likePattern(criteria.filter.trim());
      qb.andWhere(
        new Brackets((w) =>
          w
            .where('c.name ILIKE :filter', { filter: pattern })
            .orWhere('c.phone_number ILIKE :filter')
            .orWhere('c.email ILIKE :filter')
            .orWhere('c.whats_app_username ILIKE :filter'),
        ),
      );
    }
    if (criteria.name?.trim()) qb.andWhere('c.name ILIKE :name', { name: likePattern(criteria.name.trim()) });
    const digits = criteria.phoneNumber?.replace(/\D/g, '');
    if (digits) qb.andWhere('c.phone_number LIKE :phone', { phone: likePattern(digits) });
    if (criteria.whatsAppUserId) qb.andWhere('c.whats_app_user_id = :whatsAppUserId', { whatsAppUserId: criteria.whatsAppUserId });
    criteria.propertyConditions.forEach((condition, index) => addPropertyCondition(qb, condition, index));
    for (const kind of CONSENT_KINDS) {
      const status = criteria.consent?.[kind];
      if (status) qb.andWhere(`c.${CONSENT_STATUS_COLUMN[kind]} = :consent_${kind}`, { [`consent_${kind}`]: status });
    }
    if (criteria.tagIds?.length) {
      qb.andWhere(
        `EXISTS (SELECT 1 FROM conversations cv JOIN conversation_tags ct ON ct.conversation_id = cv.id
                  WHERE cv.workspace_id = c.workspace_id AND cv.contact_id = c.id AND ct.tag_id IN (:...tagIds))`,
        { tagIds: criteria.tagIds },
      );
    }
    return qb;
  }

  private ownedBy(workspaceId: string, contact: Contact): void {
    this.scope(workspaceId);
    if (contact.workspaceId !== workspaceId) throw new MissingWorkspaceError('Contact of another workspace');
  }
}

/** One property condition as `EXISTS` over the contact's values (parameters `p<index>`, `v<index>`). */
function addPropertyCondition(qb: SelectQueryBuilder<Contact>, condition: PropertyCondition, index: number): void {
  const p = `p${index}`;
  const v = `v${index}`;
  const exists = (test = '') =>
    `EXISTS (SELECT 1 FROM contact_property_values pv${index} WHERE pv${index}.workspace_id = c.workspace_id AND pv${index}.contact_id = c.id AND pv${index}.property_definition_id = :${p}${test})`;
  qb.setParameter(p, condition.propertyDefinitionId);
  if (condition.operator === SearchOperator.HasValue) return void qb.andWhere(exists());
  if (condition.operator === SearchOperator.HasNoValue) return void qb.andWhere(`NOT ${exists()}`);
  const column = `pv${index}.${COLUMN[condition.type]}`;
  if (condition.type === ContactPropertyType.Text) {
    const text = condition.value as string;
    if (condition.operator === SearchOperator.Contains || condition.operator === SearchOperator.StartsWith) {
      qb.setParameter(v, likePattern(text, condition.operator === SearchOperator.StartsWith ? 'prefix' : 'anywhere'));
      return void qb.andWhere(exists(` AND ${column} ILIKE :${v}`));
    }
    qb.setParameter(v, text.toLowerCase());
    const equal = exists(` AND lower(${column}) = :${v}`);
    return void qb.andWhere(condition.operator === SearchOperator.NotEquals ? `NOT ${equal}` : equal);
  }
  qb.setParameter(v, condition.value);
  if (condition.operator === SearchOperator.NotEquals) return void qb.andWhere(`NOT ${exists(` AND ${column} = :${v}`)}`);
  qb.andWhere(exists(` AND ${column} ${COMPARISON[condition.operator]} :${v}`));
}
