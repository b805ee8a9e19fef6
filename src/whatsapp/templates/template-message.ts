import type { ParameterValueDto, TemplateParameterDto } from '../dto/send-template.dto.js';
import type { TemplateComponent, TemplateHeaderFormat, WhatsAppTemplate } from './whatsapp-template.entity.js';
import { TemplateParametersMismatch } from '../whatsapp.errors.js';

/** A WhatsApp Cloud API template parameter. */
export type CloudParameter =
  | { type: 'text'; text: string }
  | { type: 'payload'; payload: string }
  | { type: 'image'; image: { link: string } }
  | { type: 'video'; video: { link: string } }
  | { type: 'document'; document: { link: string; filename?: string } };

export type CloudComponent =
  | { type: 'header'; parameters: CloudParameter[] }
  | { type: 'body'; parameters: CloudParameter[] }
  | { type: 'button'; sub_type: 'url' | 'quick_reply'; index: string; parameters: CloudParameter[] };

/** The body of `POST /{phone-number-id}/messages` for a template message (a type alias, so it is also a plain JSON record). */
export type CloudTemplateRequest = {
  messaging_product: 'whatsapp';
  recipient_type: 'individual';
  /** The recipient's number; a recipient known only by BSUID is addressed with `recipient` instead (see SendAcceptance). */
  to?: string;
  recipient?: string;
  type: 'template';
  template: { name: string; language: { code: string }; components: CloudComponent[] };
};

const HEADER_VALUE_TYPE: Record<TemplateHeaderFormat, ParameterValueDto['type']> = {
  TEXT: 'text',
  IMAGE: 'image',
  VIDEO: 'video',
  DOCUMENT: 'document',
};

/** The sample media URL of a media header (`example.header_handle[0]`, else `header_url[0]`), if it has a string one. */
export function headerExampleUrl(header: Extract<TemplateComponent, { type: 'HEADER' }>): string | null {
  const first = (list: unknown) => (Array.isArray(list) && typeof list[0] === 'string' && list[0] ? list[0] : null);
  return first(header.example?.header_handle) ?? first(header.example?.header_url);
}

/** Distinct `{{n}}` placeholders of a template text. */
export function placeholderCount(text: string | undefined): number {
  return new Set([...(text ?? '').matchAll(/\{\{\s*(\d+)\s*\}\}/g)].map((m) => m[1])).size;
}

function component<T extends TemplateComponent['type']>(
  template: WhatsAppTemplate,
  type: T,
): Extract<TemplateComponent, { type: T }> | undefined {
  return template.components.find((c) => c.type === type) as Extract<TemplateComponent, { type: T }> | undefined;
}

/**
 * Checks the request's parameters against the stored template and builds the Cloud API message
 * (specification rules 1-7): Body values positional for {{1}}, {{2}}…; one Header value of the
 * header's format, or the template's example media when a media header gets none; one entry per
 * dynamic button with its SubType and Index — a url button's suffix as `text`, a quick reply's
 * payload as `payload`; static buttons take no entry. Every mismatch is a 400 naming the component.
 */
export function buildTemplateMessage(
  template: WhatsAppTemplate,
  toE164: string | undefined,
  parameters: TemplateParameterDto[],
): { request: CloudTemplateRequest; preview: string } {
  const components: CloudComponent[] = [];
  const header = buildHeader(
    template,
    parameters.filter((p) => p.type === 'Header'),
  );
  if (header) components.push(header);
  const { body, preview } = buildBody(
    template,
    parameters.filter((p) => p.type === 'Body'),
  );
  if (body) components.push(body);
  components.push(
    ...buildButtons(
      template,
      parameters.filter((p) => p.type === 'Buttons'),
    ),
  );
  return {
    request: {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      ...(toE164 ? { to: toE164.replace(/^\+/, '') } : {}),
      type: 'template',
      template: { name: template.name, language: { code: template.language }, components },
    },
    preview,
  };
}

function buildHeader(template: WhatsAppTemplate, entries: TemplateParameterDto[]): CloudComponent | undefined {
  const header = component(template, 'HEADER');
  if (entries.length > 1) throw TemplateParametersMismatch('Header', 'send at most one Header entry.');
  const entry = entries[0];
  if (!header) {
    if (entry) throw TemplateParametersMismatch('Header', 'the template has no header.');
    return undefined;
  }
  if (header.format === 'TEXT') {
    const needed = placeholderCount(header.text);
    if (!entry) {
      if (needed > 0)
        throw TemplateParametersMismatch(
          'Header',
          `the template header has ${needed} placeholder; send a Header entry with one text value.`,
        );
      return undefined;
    }
    if (needed === 0) throw TemplateParametersMismatch('Header', 'the template header is fixed text and takes no value.');
  }
  if (!entry) {
    // Rule 3: a media header with no Header entry is filled from the template's example media.
    const example = headerExampleUrl(header);
    if (!example)
      throw TemplateParametersMismatch('Header', `the template has a ${header.format} header and no example media; send a Header entry.`);
    return { type: 'header', parameters: [mediaParameter(header.format, example)] };
  }
  if (entry.values.length !== 1) throw TemplateParametersMismatch('Header', 'send exactly one value.');
  const value = entry.values[0];
  const expected = HEADER_VALUE_TYPE[header.format];
  if (value.type !== expected)
    throw TemplateParametersMismatch(
      'Header',
      `the template header is ${header.format}; send a value of type ${expected}, not ${value.type}.`,
    );
  return { type: 'header', parameters: [toCloudParameter(value, 'Header')] };
}

function buildBody(template: WhatsAppTemplate, entries: TemplateParameterDto[]): { body?: CloudComponent; preview: string } {
  const text = component(template, 'BODY')?.text ?? '';
  const needed = placeholderCount(text);
  if (entries.length > 1) throw TemplateParametersMismatch('Body', 'send one Body entry; its Values are positional.');
  const values = entries[0]?.values ?? [];
  if (values.length !== needed) {
    throw TemplateParametersMismatch(
      'Body',
      `the template body has ${needed} placeholder${needed === 1 ? '' : 's'} but ${values.length} value${values.length === 1 ? ' was' : 's were'} sent.`,
    );
  }
  values.forEach((value, i) => {
    if (value.type !== 'text' || value.text === undefined)
      throw TemplateParametersMismatch('Body', `value ${i + 1} must be of type text with a Text.`);
  });
  const preview = text.replace(/\{\{\s*(\d+)\s*\}\}/g, (match, n: string) => values[Number(n) - 1]?.text ?? match);
  return { body: needed > 0 ? { type: 'body', parameters: values.map((v) => ({ type: 'text', text: v.text! })) } : undefined, preview };
}

function buildButtons(template: WhatsAppTemplate, entries: TemplateParameterDto[]): CloudComponent[] {
  const buttons = component(template, 'BUTTONS')?.buttons ?? [];
  const seen = new Set<number>();
  const built = entries.map((entry) => {
    const name = `Buttons[${entry.index ?? '?'}]`;
    if (!entry.subType || entry.index === undefined) throw TemplateParametersMismatch(name, 'a Buttons entry needs SubType and Index.');
    const index = Number(entry.index);
    if (seen.has(index)) throw TemplateParametersMismatch(name, 'one entry per button.');
    seen.add(index);
    const button = buttons[index];
    if (!button) throw TemplateParametersMismatch(name, `the template has no button at index ${index}.`);
    const expected = button.type === 'URL' ? 'url' : button.type === 'QUICK_REPLY' ? 'quick_reply' : undefined;
    if (entry.subType !== expected)
      throw TemplateParametersMismatch(name, `the button is ${button.type}; SubType ${entry.subType} does not fit.`);
    if (button.type === 'URL' && placeholderCount(button.url) === 0) {
      throw TemplateParametersMismatch(name, 'the button URL has no placeholder: static buttons are not sent in Parameters.');
    }
    if (entry.values.length !== 1 || entry.values[0].type !== 'text' || entry.values[0].text === undefined) {
      throw TemplateParametersMismatch(name, 'send exactly one value of type text.');
    }
    const text = entry.values[0].text;
    const parameter: CloudParameter = button.type === 'URL' ? { type: 'text', text } : { type: 'payload', payload: text };
    return { type: 'button' as const, sub_type: entry.subType, index: String(index), parameters: [parameter] };
  });
  buttons.forEach((button, index) => {
    if (button.type === 'URL' && placeholderCount(button.url) > 0 && !seen.has(index)) {
      throw TemplateParametersMismatch(`Buttons[${index}]`, 'the URL button has a placeholder; send its suffix in a Buttons entry.');
    }
  });
  return built.sort((a, b) => Number(a.index) - Number(b.index));
}

function mediaParameter(format: TemplateHeaderFormat, link: string): CloudParameter {
  if (format === 'IMAGE') return { type: 'image', image: { link } };
  if (format === 'VIDEO') return { type: 'video', video: { link } };
  return { type: 'document', document: { link } };
}

function toCloudParameter(value: ParameterValueDto, where: string): CloudParameter {
  const need = (field: string | undefined, name: string) => {
    if (!field) throw TemplateParametersMismatch(where, `a ${value.type} value needs ${name}.`);
    return field;
  };
  switch (value.type) {
    case 'text':
      return { type: 'text', text: need(value.text, 'Text') };
    case 'image':
      return { type: 'image', image: { link: need(value.imageUrl, 'ImageUrl') } };
    case 'video':
      return { type: 'video', video: { link: need(value.videoUrl, 'VideoUrl') } };
    case 'document':
      return {
        type: 'document',
        document: { link: need(value.documentUrl, 'DocumentUrl'), ...(value.documentFilename ? { filename: value.documentFilename } : {}) },
      };
  }
}

/** A template send's attachment on its timeline event; the category stays with the event (the frequency cap counts MARKETING ones). */
export function templateAttachment(template: Pick<WhatsAppTemplate, 'name' | 'language' | 'category'>): Record<string, unknown> {
  return { messageType: 'Template', templateName: template.name, language: template.language, category: template.category.toUpperCase() };
}
