import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, type ErrorCode, type Schemas, type WebhookEventType, type WebhookPayloads } from '@messaging-service/client';

// The type checker is the test here: each `@ts-expect-error` line must fail to compile, or `npm run typecheck` fails.
const codes: ErrorCode[] = [
  'Channels:ChannelNotFound',
  'WhatsApp:ServiceWindowExpired',
  'invalid_client',
  // @ts-expect-error a misspelt code
  'Channels:ChanelNotFound',
  // @ts-expect-error a code of no area
  'ChannelNotFound',
];
const eventTypes: WebhookEventType[] = [
  'whatsapp.message',
  'conversation.tags_changed',
  // @ts-expect-error an event type the catalog does not have
  'whatsapp.messages',
];

const SECRET = `whsec_${Buffer.from('a secret of the unit test, 32 b!').toString('base64')}`;

/** A delivery as the service signs it: Standard Webhooks headers over the raw body, and `webhook-event`. */
function signed(eventType: string, body: object) {
  const id = 'msg_unit';
  const at = new Date();
  const raw = JSON.stringify(body);
  const headers = {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(SECRET).sign(id, at, raw),
    'webhook-event': eventType,
  };
  return { raw, headers };
}

const message: Partial<WebhookPayloads['whatsapp.message']> = { messageId: 'wamid.1', status: 'Read', direction: 'Outbound' };

describe('The TypeScript client types', () => {
  it('types error codes and event types from the document', () => {
    assert.equal(codes.length, 5);
    assert.equal(eventTypes.length, 3);
  });

  it("verifies a channel's event: the payload is the body, typed by the event type", () => {
    const { raw, headers } = signed('whatsapp.message', message);
    const event = verifyWebhook(SECRET, raw, headers);
    // @ts-expect-error not every event type has a status: narrow first
    assert.equal(event.payload.status, 'Read');
    if (event.eventType !== 'whatsapp.message') assert.fail(event.eventType);
    const status: string | null = event.payload.status;
    assert.equal(status, 'Read');
    assert.equal(event.envelope, undefined);
    assert.equal(event.id, 'msg_unit');
  });

  it("verifies an endpoint's event: the payload is the envelope's data, the envelope is kept", () => {
    const contact: Partial<Schemas['ContactDto']> = { id: '0190a1b2-0000-7000-8000-000000000001', phoneNumber: '+966502000001' };
    const envelope = {
      type: 'contact.created',
      timestamp: new Date().toISOString(),
      workspaceId: '0190a1b2-0000-7000-8000-00000000000a',
      data: contact,
    };
    const { raw, headers } = signed('contact.created', envelope);
    const event = verifyWebhook(SECRET, raw, headers);
    if (event.eventType !== 'contact.created') assert.fail(event.eventType);
    const phoneNumber: string | null = event.payload.phoneNumber;
    assert.equal(phoneNumber, '+966502000001');
    assert.deepEqual(event.envelope, envelope);
  });

  it('refuses a delivery whose signature does not match', () => {
    const { raw, headers } = signed('whatsapp.message', message);
    assert.throws(() => verifyWebhook(SECRET, raw.replace('Read', 'Sent'), headers), /signature/i);
  });
});
