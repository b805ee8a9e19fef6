import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import { ContactPropertyType } from '../contact-properties/contact-property-definition.entity.js';
import { formatTimestamp, TimestampFormat } from '../common/time/timestamp-format.js';
import { Contact } from './contact.entity.js';
import { applyContactCriteria, type ContactCriteria } from './contact-query.js';
import { ContactsService } from './contacts.service.js';
import type { ContactPropertyStatisticsDto } from './dto/property-statistics.dto.js';

const TOP_TEXT_VALUES = 20;

/** Contact Properties Statistics over all the workspace's contacts, or those matching search filters. */
@Injectable()
export class PropertyStatisticsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly properties: ContactPropertiesService,
    private readonly contacts: ContactsService,
  ) {}

  async compute(workspaceId: string, propertyId: string, criteria: ContactCriteria = {}): Promise<ContactPropertyStatisticsDto> {
    const definition = await this.properties.get(workspaceId, propertyId);
    const definitions = await this.contacts.criteriaDefinitions(workspaceId, criteria);
    const subset = applyContactCriteria(
      this.dataSource.getRepository(Contact).createQueryBuilder('c').select('c.id').where('c.workspace_id = :workspaceId', { workspaceId }),
      { ...criteria, sorting: undefined },
      definitions,
    ).orderBy();
    const [subsetSql, subsetParams] = subset.getQueryAndParameters();
    const n = subsetParams.length;
    const scope = `FROM contact_property_values v WHERE v.workspace_id = $${n + 1} AND v.property_definition_id = $${n + 2} AND v.contact_id IN (${subsetSql})`;
    const params = [...subsetParams, workspaceId, propertyId];
    const [[totals], values] = await Promise.all([
      this.dataSource.query(
        `SELECT (SELECT count(*) FROM (${subsetSql}) s)::int AS total, count(*)::int AS with_value,
                min(v.number_value)::float8 AS min, max(v.number_value)::float8 AS max, avg(v.number_value)::float8 AS average,
                sum(v.number_value)::float8 AS sum, min(v.date_value) AS earliest, max(v.date_value) AS latest ${scope}`,
        params,
      ) as Promise<Array<Record<string, number | Date | null>>>,
      this.valueCounts(definition.type, scope, params),
    ]);
    const isNumber = definition.type === ContactPropertyType.Number;
    const isDate = definition.type === ContactPropertyType.Date;
    const counts = new Map(values.map((row) => [row.value, row.count]));
    return {
      propertyDefinitionId: definition.id,
      propertyName: definition.name,
      type: definition.type,
      totalContacts: totals.total as number,
      withValue: totals.with_value as number,
      withoutValue: (totals.total as number) - (totals.with_value as number),
      values:
        definition.type === ContactPropertyType.Select
          ? definition.selectOptions.map((o) => ({ value: o.value, count: counts.get(o.value) ?? 0 }))
          : values,
      min: isNumber ? (totals.min as number | null) : null,
      max: isNumber ? (totals.max as number | null) : null,
      average: isNumber ? (totals.average as number | null) : null,
      sum: isNumber ? (totals.sum as number | null) : null,
      earliest: isDate ? formatTimestamp(totals.earliest as Date | null, TimestampFormat.noOffset) : null,
      latest: isDate ? formatTimestamp(totals.latest as Date | null, TimestampFormat.noOffset) : null,
    };
  }

  private valueCounts(type: ContactPropertyType, scope: string, params: unknown[]): Promise<Array<{ value: string; count: number }>> {
    if (type !== ContactPropertyType.Select && type !== ContactPropertyType.Text) return Promise.resolve([]);
    const column = type === ContactPropertyType.Select ? 'select_value' : 'text_value';
    const limit = type === ContactPropertyType.Text ? `LIMIT ${TOP_TEXT_VALUES}` : '';
    return this.dataSource.query(
      `SELECT v.${column} AS value, count(*)::int AS count ${scope} GROUP BY v.${column} ORDER BY count(*) DESC, v.${column} ASC ${limit}`,
      params,
    );
  }
}
