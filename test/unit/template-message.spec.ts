import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildTemplateMessage } from '../../src/whatsapp/templates/template-message.js';
import type { TemplateComponent, WhatsAppTemplate } from '../../src/whatsapp/templates/whatsapp-template.entity.js';
import type { DomainError } from '../../src/common/errors/domain-error.js';

function template(components: TemplateComponent[]): WhatsAppTemplate {
  return {
    id: 't',
    workspaceId: 'w',
    channelId: 'c',
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    status: 'APPROVED',
    components,
    providerTemplateId: null,
    qualityScore: null,
    statusReason: null,
    creationTime: new Date(),
  };
}

const orderTemplate = template([
  { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://cdn.example.com/sample.jpg'] } },
  { type: 'BODY', text: 'Hi {{1}}, your order {{2}} ships {{3}}.' },
  { type: 'FOOTER', text: 'Thanks' },
  {
    type: 'BUTTONS',
    buttons: [
      { type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}' },
      { type: 'QUICK_REPLY', text: 'Stop updates' },
      { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+14155550100' },
    ],
  },
]);

const mismatch = (component: string) => (err: DomainError) =>
  err.code === 'WhatsApp:TemplateParametersMismatch' && err.message.startsWith(`${component}:`);

describe('Send Template: the Cloud API request (specification rules 1-7)', () => {
  it('rule 1: Body values are positional for {{1}}, {{2}}, {{3}}', () => {
    const { request, preview } = buildTemplateMessage(orderTemplate, '+966501234567', [
      {
        type: 'Body',
        values: [
          { type: 'text', text: 'Sara' },
          { type: 'text', text: 'A-17' },
          { type: 'text', text: 'today' },
        ],
      },
      { type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'A-17' }] },
    ]);
    assert.equal(request.to, '966501234567');
    assert.deepEqual(request.template.name, 'order_update');
    assert.deepEqual(request.template.language, { code: 'en_US' });
    const body = request.template.components.find((c) => c.type === 'body');
    assert.deepEqual(body, {
      type: 'body',
      parameters: [
        { type: 'text', text: 'Sara' },
        { type: 'text', text: 'A-17' },
        { type: 'text', text: 'today' },
      ],
    });
    assert.equal(preview, 'Hi Sara, your order A-17 ships today.');
  });

  it('rules 2 and 3: a media header takes its value, or the template’s example media when none is sent', () => {
    const body = {
      type: 'Body' as const,
      values: [
        { type: 'text' as const, text: 'a' },
        { type: 'text' as const, text: 'b' },
        { type: 'text' as const, text: 'c' },
      ],
    };
    const url = { type: 'Buttons' as const, subType: 'url' as const, index: '0', values: [{ type: 'text' as const, text: 'x' }] };
    const given = buildTemplateMessage(orderTemplate, '+14155550101', [
      { type: 'Header', values: [{ type: 'image', imageUrl: 'https://img.example.com/p.png' }] },
      body,
      url,
    ]);
    assert.deepEqual(given.request.template.components[0], {
      type: 'header',
      parameters: [{ type: 'image', image: { link: 'https://img.example.com/p.png' } }],
    });
    const fallback = buildTemplateMessage(orderTemplate, '+14155550101', [body, url]);
    assert.deepEqual(fallback.request.template.components[0], {
      type: 'header',
      parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/sample.jpg' } }],
    });
    const document = template([
      { type: 'HEADER', format: 'DOCUMENT' },
      { type: 'BODY', text: 'Invoice' },
    ]);
    const doc = buildTemplateMessage(document, '+14155550101', [
      { type: 'Header', values: [{ type: 'document', documentUrl: 'https://x.example.com/i.pdf', documentFilename: 'invoice.pdf' }] },
    ]);
    assert.deepEqual(doc.request.template.components, [
      { type: 'header', parameters: [{ type: 'document', document: { link: 'https://x.example.com/i.pdf', filename: 'invoice.pdf' } }] },
    ]);
    assert.throws(() => buildTemplateMessage(document, '+14155550101', []), mismatch('Header'), 'no entry and no example media');
  });

  it('rules 4-7: one component per dynamic button, url suffix as text, quick reply as payload, static buttons left out', () => {
    const { request } = buildTemplateMessage(orderTemplate, '+14155550101', [
      {
        type: 'Body',
        values: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
          { type: 'text', text: 'c' },
        ],
      },
      { type: 'Buttons', subType: 'quick_reply', index: '1', values: [{ type: 'text', text: 'STOP_ORDER_A17' }] },
      { type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'A-17?ref=wa' }] },
    ]);
    const buttons = request.template.components.filter((c) => c.type === 'button');
    assert.deepEqual(buttons, [
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-17?ref=wa' }] },
      { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'STOP_ORDER_A17' }] },
    ]);
    assert.deepEqual(
      request.template.components.map((c) => c.type),
      ['header', 'body', 'button', 'button'],
    );
  });

  it('refuses each mismatch with a 400 naming the component', () => {
    const body3 = {
      type: 'Body' as const,
      values: [
        { type: 'text' as const, text: 'a' },
        { type: 'text' as const, text: 'b' },
        { type: 'text' as const, text: 'c' },
      ],
    };
    const url0 = { type: 'Buttons' as const, subType: 'url' as const, index: '0', values: [{ type: 'text' as const, text: 'x' }] };
    const cases: Array<[string, Parameters<typeof buildTemplateMessage>[2]]> = [
      ['Body', [{ type: 'Body', values: [{ type: 'text', text: 'only one' }] }, url0]],
      ['Body', [body3, body3, url0]],
      ['Header', [{ type: 'Header', values: [{ type: 'video', videoUrl: 'https://v.example.com/v.mp4' }] }, body3, url0]],
      ['Header', [{ type: 'Header', values: [{ type: 'image' }] }, body3, url0]],
      ['Buttons[0]', [body3]],
      ['Buttons[2]', [body3, url0, { type: 'Buttons', subType: 'url', index: '2', values: [{ type: 'text', text: 'x' }] }]],
      ['Buttons[5]', [body3, url0, { type: 'Buttons', subType: 'quick_reply', index: '5', values: [{ type: 'text', text: 'x' }] }]],
      ['Buttons[1]', [body3, url0, { type: 'Buttons', subType: 'url', index: '1', values: [{ type: 'text', text: 'x' }] }]],
      ['Buttons[0]', [body3, url0, url0]],
      ['Buttons[?]', [body3, url0, { type: 'Buttons', values: [{ type: 'text', text: 'x' }] }]],
    ];
    for (const [component, parameters] of cases) {
      assert.throws(
        () => buildTemplateMessage(orderTemplate, '+14155550101', parameters),
        mismatch(component),
        `${component}: ${JSON.stringify(parameters)}`,
      );
    }
    const noHeader = template([{ type: 'BODY', text: 'Hello' }]);
    assert.throws(
      () => buildTemplateMessage(noHeader, '+1', [{ type: 'Header', values: [{ type: 'text', text: 'x' }] }]),
      mismatch('Header'),
    );
    const staticUrl = template([
      { type: 'BODY', text: 'Hi' },
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Site', url: 'https://example.com' }] },
    ]);
    assert.throws(
      () => buildTemplateMessage(staticUrl, '+1', [{ type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'x' }] }]),
      mismatch('Buttons[0]'),
    );
    assert.deepEqual(buildTemplateMessage(staticUrl, '+1', []).request.template.components, [], 'a static button needs no entry');
  });
});
