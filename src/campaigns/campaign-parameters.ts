import type { CampaignTemplate } from './campaign.entity.js';

/** `{{contact.name}}`, `{{contact.company}}`, `{{property.<Name>}}` (API.md §13); spaces inside the braces are allowed. */
const PLACEHOLDER = /\{\{\s*(contact\.name|contact\.company|property\.([^{}]+?))\s*\}\}/g;

/** What a recipient's placeholders are filled from. */
export interface RecipientFields {
  name: string | null;
  company: string | null;
  /** The text of the contact's property of this name (null: none). */
  property: (name: string) => string | null;
}

/** The property names the template's text values name (as written), so that their values are read once per recipient. */
export function propertyNames(template: CampaignTemplate): string[] {
  const names = new Set<string>();
  for (const text of texts(template)) for (const match of text.matchAll(PLACEHOLDER)) if (match[2]) names.add(match[2].trim());
  return [...names];
}

/** True when a text value names a recipient's field. */
export function hasPlaceholders(template: CampaignTemplate): boolean {
  return texts(template).some((text) => new RegExp(PLACEHOLDER.source).test(text));
}

/**
 * The template's parameters for one recipient: each placeholder replaced by the recipient's value.
 * Throws {@link EmptyPlaceholderError} when the value is missing (WhatsApp refuses an empty parameter).
 */
export function fillParameters(template: CampaignTemplate, fields: RecipientFields): CampaignTemplate['parameters'] {
  return template.parameters.map((parameter) => ({
    ...parameter,
    values: parameter.values.map((value) => (typeof value.text === 'string' ? { ...value, text: fillText(value.text, fields) } : value)),
  }));
}

/** The same parameters with every placeholder replaced by a sample: what Create Campaign checks against the template. */
export function sampleParameters(template: CampaignTemplate): CampaignTemplate['parameters'] {
  return fillParameters(template, { name: 'x', company: 'x', property: () => 'x' });
}

export class EmptyPlaceholderError extends Error {
  constructor(readonly placeholder: string) {
    super(`The recipient has no value for ${placeholder}.`);
  }
}

function fillText(text: string, fields: RecipientFields): string {
  return text.replace(PLACEHOLDER, (whole, field: string, property: string | undefined) => {
    const value = property === undefined ? (field === 'contact.name' ? fields.name : fields.company) : fields.property(property.trim());
    if (!value?.trim()) throw new EmptyPlaceholderError(whole);
    return value;
  });
}

function texts(template: CampaignTemplate): string[] {
  return template.parameters.flatMap((parameter) =>
    parameter.values.map((value) => value.text).filter((t): t is string => typeof t === 'string'),
  );
}
