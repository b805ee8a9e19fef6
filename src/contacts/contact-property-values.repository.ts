import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository, SelectQueryBuilder } from 'typeorm';
import { ContactPropertyType } from '../contact-properties/contact-property-type.js';
import { newId } from '../common/id.js';
import { MissingWorkspaceError, WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import type { Contact } from './contact.entity.js';
import { ContactPropertyValue } from './contact-property-value.entity.js';
import type { TypedValue } from './property-value.js';

const TOP_TEXT_VALUES = 20;

/** What {@link ContactPropertyValuesRepository.statistics} counts over a set of contacts. */
export interface PropertyValueStatistics {
  /** Contacts considered. */
  total: number;
  /** Of those, contacts with a value. */
  withValue: number;
  /** Number properties (null otherwise or without values). */
  min: number | null;
  max: number | null;
  average: number | null;
  sum: number | null;
  /** Date properties (null otherwise or without values). */
  earliest: Date | null;
  latest: Date | null;
  /** Select: the count of each option held; Text: the most frequent values; otherwise none. */
  valueCounts: Array<{ value: string; count: number }>;
}

/** A contact named by id (its number, when known, alongside), or by number alone (it may not exist yet). */
export type ContactRef = { contactId: string; phoneNumber: string | null } | { contactId?: undefined; phoneNumber: string | null };

@Injectable()
export class ContactPropertyValuesRepository extends WorkspaceScopedRepository<ContactPropertyValue> {
  constructor(@InjectRepository(ContactPropertyValue) repository: Repository<ContactPropertyValue>) {
    super(repository);
  }

  /** A merge keeps the value of a property the surviving contact has already. */
  protected override readonly contactMove = { unlessTargetHas: 'property_definition_id' };

  /** The values of these contacts, in one query. */
  ofContacts(workspaceId: string, contactIds: readonly string[]): Promise<ContactPropertyValue[]> {
    return this.selectEntities(workspaceId, 'AND contact_id = ANY($2)', [contactIds]);
  }

  /** The contact's value of one property. */
  findOf(workspaceId: string, contactId: string, propertyDefinitionId: string): Promise<ContactPropertyValue | null> {
    return this.findOne(workspaceId, { contactId, propertyDefinitionId });
  }

  /**
   * The text a contact (by id, or by number) holds in a Text or Select property, trimmed; null when
   * there is no such contact or value. The send policy reads a contact's time zone this way.
   */
  async textOf(workspaceId: string, contact: ContactRef, propertyDefinitionId: string): Promise<string | null> {
    const byId = contact.contactId !== undefined;
    if (!byId && !contact.phoneNumber) return null;
    const [row] = await this.sql<{ value: string | null }>(
      workspaceId,
      `SELECT COALESCE(v.text_value, v.select_value) AS value
         FROM contact_property_values v
         JOIN contacts c ON c.id = v.contact_id AND c.workspace_id = v.workspace_id
        WHERE v.workspace_id = $1 AND v.property_definition_id = $2 AND ${byId ? 'c.id = $3' : 'c.phone_number = $3'}
        LIMIT 1`,
      [propertyDefinitionId, byId ? contact.contactId : contact.phoneNumber],
    );
    return row?.value?.trim() || null;
  }

  /** Sets the contact's value of one property: added, or updated in place (one statement; the pair is unique). */
  async put(workspaceId: string, contactId: string, propertyDefinitionId: string, value: TypedValue): Promise<void> {
    this.scope(workspaceId);
    await this.repository
      .createQueryBuilder()
      .insert()
      .values({ id: newId(), workspaceId, contactId, propertyDefinitionId, ...value })
      .orUpdate(['text_value', 'number_value', 'date_value', 'select_value'], ['contact_id', 'property_definition_id'])
      .execute();
  }

  /**
   * Statistics of one property over the contacts `contactIds` selects (a query of the workspace's
   * contacts, {@link ContactsRepository.matchingIds}): two statements, run side by side.
   */
  async statistics(
    workspaceId: string,
    definition: { id: string; type: ContactPropertyType },
    contactIds: SelectQueryBuilder<Contact>,
  ): Promise<PropertyValueStatistics> {
    const [subsetSql, subsetParams] = contactIds.getQueryAndParameters();
    // The subset is workspace-scoped first (`c.workspace_id = $1`), so the values share its $1.
    if (subsetParams[0] !== workspaceId) throw new MissingWorkspaceError('Contact (a subset not scoped to the workspace first)');
    const params = [...subsetParams.slice(1), definition.id];
    const scope = `FROM contact_property_values v WHERE v.workspace_id = $1 AND v.property_definition_id = $${params.length + 1} AND v.contact_id IN (${subsetSql})`;
    const [[totals], valueCounts] = await Promise.all([
      this.sql<{
        total: number;
        with_value: number;
        min: number | null;
        max: number | null;
        average: number | null;
        sum: number | null;
        earliest: Date | null;
        latest: Date | null;
      }>(
        workspaceId,
        `SELECT (SELECT count(*) FROM (${subsetSql}) s)::int AS total, count(*)::int AS with_value,
                min(v.number_value)::float8 AS min, max(v.number_value)::float8 AS max, avg(v.number_value)::float8 AS average,
                sum(v.number_value)::float8 AS sum, min(v.date_value) AS earliest, max(v.date_value) AS latest ${scope}`,
        params,
      ),
      this.valueCounts(workspaceId, definition.type, scope, params),
    ]);
    return {
      total: totals.total,
      withValue: totals.with_value,
      min: totals.min,
      max: totals.max,
      average: totals.average,
      sum: totals.sum,
      earliest: totals.earliest,
      latest: totals.latest,
      valueCounts,
    };
  }

  private valueCounts(
    workspaceId: string,
    type: ContactPropertyType,
    scope: string,
    params: unknown[],
  ): Promise<Array<{ value: string; count: number }>> {
    if (type !== ContactPropertyType.Select && type !== ContactPropertyType.Text) return Promise.resolve([]);
    const column = type === ContactPropertyType.Select ? 'select_value' : 'text_value';
    const limit = type === ContactPropertyType.Text ? `LIMIT ${TOP_TEXT_VALUES}` : '';
    return this.sql(
      workspaceId,
      `SELECT v.${column} AS value, count(*)::int AS count ${scope} GROUP BY v.${column} ORDER BY count(*) DESC, v.${column} ASC ${limit}`,
      params,
    );
  }
}
