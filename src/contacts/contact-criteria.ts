import type { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { ContactPropertyType } from '../contact-properties/contact-property-type.js';
import { PropertyNotFound } from '../contact-properties/contact-properties.errors.js';
import type { ConsentStatus } from './consent.js';
import { InvalidSearchFilter } from './contacts.errors.js';
import { SearchOperator, type CustomPropertyFilterDto } from './dto/search-contacts.dto.js';
import { toTypedValue } from './property-value.js';

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

/** Get Contacts and Search Contacts criteria (API.md §5), as the request gives them. */
export interface ContactCriteria {
  filter?: string;
  name?: string;
  phoneNumber?: string;
  /** Exactly this WhatsApp business-scoped user id. */
  whatsAppUserId?: string;
  sorting?: string;
  customPropertyFilters?: CustomPropertyFilterDto[];
  tagIds?: string[];
  /** Contacts whose consents have these statuses (API.md §13). */
  consent?: { whatsAppMarketing?: ConsentStatus; calls?: ConsentStatus };
}

/** A custom property filter checked against its definition: an operator that applies to the type and a value read as it. */
export interface PropertyCondition {
  propertyDefinitionId: string;
  type: ContactPropertyType;
  operator: SearchOperator;
  /** Text: the string as given; Number: the canonical decimal; Date: the instant; Select: the option. None for HasValue and HasNoValue. */
  value?: string | Date;
}

/** Criteria whose property filters were checked ({@link propertyConditions}): what the contacts repository queries with. */
export interface CheckedContactCriteria extends Omit<ContactCriteria, 'customPropertyFilters'> {
  propertyConditions: PropertyCondition[];
}

/** True when the criteria narrow the workspace's contacts (so the total must be counted, not read). */
export function hasCriteria(criteria: CheckedContactCriteria): boolean {
  return Boolean(
    criteria.filter?.trim() ||
    criteria.name?.trim() ||
    criteria.phoneNumber?.replace(/\D/g, '') ||
    criteria.whatsAppUserId ||
    criteria.propertyConditions.length ||
    criteria.tagIds?.length ||
    criteria.consent?.whatsAppMarketing ||
    criteria.consent?.calls,
  );
}

/**
 * Checks each filter, in order, against the definitions it names: an unknown one is a 404, an
 * operator that does not apply to the type or a value that does not read as it a 400.
 */
export function propertyConditions(
  filters: readonly CustomPropertyFilterDto[],
  definitions: Map<string, ContactPropertyDefinition>,
): PropertyCondition[] {
  return filters.map((filter, index) => {
    const definition = definitions.get(filter.propertyDefinitionId);
    if (!definition) throw PropertyNotFound(filter.propertyDefinitionId);
    const condition = { propertyDefinitionId: definition.id, type: definition.type, operator: filter.operator };
    if (filter.operator === SearchOperator.HasValue || filter.operator === SearchOperator.HasNoValue) return condition;
    if (!OPERATORS_BY_TYPE[definition.type].includes(filter.operator)) {
      throw InvalidSearchFilter(
        `Operator ${SearchOperator[filter.operator]} does not apply to ${ContactPropertyType[definition.type]} property '${definition.name}'.`,
        `customPropertyFilters[${index}].operator`,
      );
    }
    if (definition.type === ContactPropertyType.Text) {
      if (typeof filter.value !== 'string')
        throw InvalidSearchFilter('A text filter needs a string value.', `customPropertyFilters[${index}].value`);
      return { ...condition, value: filter.value };
    }
    const typed = toTypedValue(definition, filter.value);
    return { ...condition, value: (typed.numberValue ?? typed.dateValue ?? typed.selectValue)! };
  });
}
