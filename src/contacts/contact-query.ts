import { Brackets, type SelectQueryBuilder } from 'typeorm';
import { ContactPropertyType, type ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { PropertyNotFound } from '../contact-properties/contact-properties.errors.js';
import { parseSorting } from '../common/paging/sorting.js';
import type { Contact } from './contact.entity.js';
import { InvalidSearchFilter } from './contacts.errors.js';
import { SearchOperator, type CustomPropertyFilterDto } from './dto/search-contacts.dto.js';
import { toTypedValue } from './property-value.js';

const SORTABLE = { name: 'c.name', creationtime: 'c.creation_time', lastmodificationtime: 'c.last_modification_time' };
const DEFAULT_SORT = { column: 'c.creation_time', direction: 'DESC' as const };

/** Numbers and dates are ordered: they compare. */
const ORDERED_OPERATORS = [
  SearchOperator.Equals,
  SearchOperator.NotEquals,
  SearchOperator.GreaterThan,
  SearchOperator.GreaterThanOrEqual,
  SearchOperator.LessThan,
  SearchOperator.LessThanOrEqual,
];
const OPERATORS_BY_TYPE: Record<ContactPropertyType, SearchOperator[]> = {
  [ContactPropertyType.Text]: [SearchOperator.Equals, SearchOperator.NotEquals, SearchOperator.Contains, SearchOperator.StartsWith],
  [ContactPropertyType.Select]: [SearchOperator.Equals, SearchOperator.NotEquals],
  [ContactPropertyType.Number]: ORDERED_OPERATORS,
  [ContactPropertyType.Date]: ORDERED_OPERATORS,
};
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

export interface ContactCriteria {
  filter?: string;
  name?: string;
  phoneNumber?: string;
  sorting?: string;
  customPropertyFilters?: CustomPropertyFilterDto[];
  tagIds?: string[];
}

function likePattern(text: string, prefixOnly = false): string {
  const escaped = text.replace(/[\\%_]/g, '\\$&');
  return prefixOnly ? `${escaped}%` : `%${escaped}%`;
}

/** True when the criteria narrow the workspace's contacts (so the total must be counted, not read). */
export function hasCriteria(criteria: ContactCriteria): boolean {
  return Boolean(
    criteria.filter?.trim() ||
    criteria.name?.trim() ||
    criteria.phoneNumber?.replace(/\D/g, '') ||
    criteria.customPropertyFilters?.length ||
    criteria.tagIds?.length,
  );
}

/** Adds the list/search criteria (already workspace-scoped by the caller) and the order to a contacts query. */
export function applyContactCriteria(
  qb: SelectQueryBuilder<Contact>,
  criteria: ContactCriteria,
  definitions: Map<string, ContactPropertyDefinition>,
): SelectQueryBuilder<Contact> {
  if (criteria.filter?.trim()) {
    const pattern = likePattern(criteria.filter.trim());
    qb.andWhere(
      new Brackets((w) =>
        w.where('c.name ILIKE :filter', { filter: pattern }).orWhere('c.phone_number ILIKE :filter').orWhere('c.email ILIKE :filter'),
      ),
    );
  }
  if (criteria.name?.trim()) qb.andWhere('c.name ILIKE :name', { name: likePattern(criteria.name.trim()) });
  const digits = criteria.phoneNumber?.replace(/\D/g, '');
  if (digits) qb.andWhere('c.phone_number LIKE :phone', { phone: likePattern(digits) });
  (criteria.customPropertyFilters ?? []).forEach((filter, index) => addPropertyFilter(qb, filter, index, definitions));
  if (criteria.tagIds?.length) {
    qb.andWhere(
      `EXISTS (SELECT 1 FROM conversations cv JOIN conversation_tags ct ON ct.conversation_id = cv.id
                WHERE cv.workspace_id = c.workspace_id AND cv.contact_id = c.id AND ct.tag_id IN (:...tagIds))`,
      { tagIds: criteria.tagIds },
    );
  }
  const sort = parseSorting(criteria.sorting, SORTABLE, DEFAULT_SORT);
  return qb.orderBy(sort.column, sort.direction).addOrderBy('c.id', sort.direction);
}

function addPropertyFilter(
  qb: SelectQueryBuilder<Contact>,
  filter: CustomPropertyFilterDto,
  index: number,
  definitions: Map<string, ContactPropertyDefinition>,
): void {
  const definition = definitions.get(filter.propertyDefinitionId);
  if (!definition) throw PropertyNotFound(filter.propertyDefinitionId);
  const p = `p${index}`;
  const v = `v${index}`;
  const exists = (condition = '') =>
    `EXISTS (SELECT 1 FROM contact_property_values pv${index} WHERE pv${index}.workspace_id = c.workspace_id AND pv${index}.contact_id = c.id AND pv${index}.property_definition_id = :${p}${condition})`;
  qb.setParameter(p, definition.id);
  if (filter.operator === SearchOperator.HasValue) return void qb.andWhere(exists());
  if (filter.operator === SearchOperator.HasNoValue) return void qb.andWhere(`NOT ${exists()}`);
  if (!OPERATORS_BY_TYPE[definition.type].includes(filter.operator)) {
    throw InvalidSearchFilter(
      `Operator ${SearchOperator[filter.operator]} does not apply to ${ContactPropertyType[definition.type]} property '${definition.name}'.`,
      `customPropertyFilters[${index}].operator`,
    );
  }
  const column = `pv${index}.${COLUMN[definition.type]}`;
  if (definition.type === ContactPropertyType.Text) {
    if (typeof filter.value !== 'string')
      throw InvalidSearchFilter('A text filter needs a string value.', `customPropertyFilters[${index}].value`);
    const text = filter.value;
    if (filter.operator === SearchOperator.Contains || filter.operator === SearchOperator.StartsWith) {
      qb.setParameter(v, likePattern(text, filter.operator === SearchOperator.StartsWith));
      return void qb.andWhere(exists(` AND ${column} ILIKE :${v}`));
    }
    qb.setParameter(v, text.toLowerCase());
    const equal = exists(` AND lower(${column}) = :${v}`);
    return void qb.andWhere(filter.operator === SearchOperator.NotEquals ? `NOT ${equal}` : equal);
  }
  const typed = toTypedValue(definition, filter.value);
  qb.setParameter(v, typed.numberValue ?? typed.dateValue ?? typed.selectValue);
  if (filter.operator === SearchOperator.NotEquals) return void qb.andWhere(`NOT ${exists(` AND ${column} = :${v}`)}`);
  qb.andWhere(exists(` AND ${column} ${COMPARISON[filter.operator]} :${v}`));
}
