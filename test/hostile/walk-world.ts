import assert from 'node:assert/strict';
import { createChannel, createWorkspace, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import type { TestApp } from '../support/test-app.js';
import { publishEvent } from '../support/webhooks.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

/** Real records of one workspace, so that walked operations get past "not found" into their validation and service code. */
export interface WalkWorld {
  ws: WorkspaceFixture;
  /** A second service account: the token operation logs in with it, and the walk revokes it last. */
  spareAccount: { id: string; clientId: string; clientSecret: string };
  channelId: string;
  /** Changed and deleted by the admin channel operations, so that the main channel stays as it is. */
  spareChannelId: string;
  contactId: string;
  /** Changed by Update Contact. */
  spareContactId: string;
  properties: { text: string; number: string; select: string; date: string };
  /** Changed by Update Contact Property (which may make it required), so that the others stay optional. */
  spareProperty: string;
  tagId: string;
  spareTagId: string;
  conversationId: string;
  userId: string;
  flowId: string;
  ivrId: string;
  /** A call scheduled for tomorrow (`sendAt`), which Cancel Scheduled Send cancels. */
  scheduledIvrId: string;
  deliveryId: string;
  /** Has written to the channel, so free-form sends are inside the service window. */
  recipient: string;
  /** The recipient's inbound message (our event id): Mark As Read and Send Reaction take it. */
  inboundEventId: string;
  templateName: string;
  webhookUrl: string;
  /** A webhook endpoint (API.md §11.1) pointing at the receiver; Delete Webhook Endpoint removes it last. */
  webhookEndpointId: string;
  /** Campaigns (API.md §13), scheduled for tomorrow so that nothing is sent: one per state an action starts from. */
  campaigns: { draft: string; toCancel: string; scheduled: string; paused: string };
}

let serial = 0;
/** A valid Saudi mobile number no other call of this run uses. */
export const uniquePhone = () => `96650${String(1_000_000 + ++serial)}`;
export const uniqueSuffix = () => String(++serial);

/** A template campaign for tomorrow to the walk's contact, with a per-recipient placeholder. */
export const campaignBody = (channelId: string, templateName: string, contactId: string) => ({
  name: `Walk campaign ${uniqueSuffix()}`,
  channelId,
  kind: 'WhatsAppTemplate',
  template: {
    templateName,
    language: 'en_US',
    parameters: [
      { type: 'Header', values: [{ type: 'text', text: 'A-17' }] },
      { type: 'Body', values: [{ type: 'text', text: '{{contact.name}}' }] },
      { type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'A-17' }] },
    ],
  },
  audience: { contactIds: [contactId] },
  scheduledAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
});

export const FLOW = {
  name: 'Walk flow',
  description: 'Asks one question',
  startStepId: 'ask',
  steps: [
    {
      id: 'ask',
      type: 'Question',
      props: {
        audioFileUrl: 'https://media.example.com/ask.wav',
        options: [{ digit: '1', description: 'Yes', nextStepId: 'bye', responseMessageFileUrl: 'https://media.example.com/ok.wav' }],
        maxAudioRetries: 1,
        inputTimeoutMs: 5000,
        noInputStepId: 'bye',
      },
    },
    { id: 'bye', type: 'Hangup', props: { audioFileUrl: 'https://media.example.com/bye.wav' } },
  ],
};

export const TEMPLATE = {
  name: 'walk_order',
  language: 'en_US',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
    { type: 'BODY', text: 'Hi {{1}}, your order is on its way.' },
    { type: 'FOOTER', text: 'Reply STOP to opt out' },
    { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}' }] },
  ],
};

async function ok<T = any>(what: string, call: Promise<{ status: number; body: T; text: string }>): Promise<T> {
  const res = await call;
  assert.ok(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${res.text.slice(0, 500)}`);
  return res.body;
}

export async function buildWorld(t: TestApp, receiver: WebhookReceiver): Promise<WalkWorld> {
  const ws = await createWorkspace(t, 'Hostile walk');
  const api = ws.api;
  const webhookUrl = receiver.url('/hooks');
  // Calls ring for two minutes, so that the walk's outbound IVR request can still be cancelled.
  const channel = await createChannel(t, ws.workspaceId, {
    webhookUrl,
    postCallWebhookUrl: webhookUrl,
    voice: { provider: 'sandbox', sandbox: { ringMs: 120_000 } },
  });
  const spareChannel = await createChannel(t, ws.workspaceId, { name: 'Spare', phoneNumber: '+14155550999' });
  const spareAccount = await ok(
    'spare service account',
    t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/service-accounts`, { name: 'spare' }),
  );
  const property = (name: string, type: number, extra: Record<string, unknown> = {}) =>
    ok(`property ${name}`, api.post('/v1/contact-property-definitions', { name, type, ...extra })).then((p) => p.id as string);
  const properties = {
    text: await property('Walk text', 1),
    number: await property('Walk number', 2),
    select: await property('Walk select', 3, { selectOptions: ['Gold', { value: 'Silver', color: '#c0c0c0' }] }),
    date: await property('Walk date', 4),
  };
  const spareProperty = await property('Spare select', 3, { selectOptions: ['Gold', 'Silver'] });
  const contact = await ok(
    'contact',
    api.post('/v1/contacts', { name: 'Walk contact', phoneNumber: uniquePhone(), email: 'walk@example.com' }),
  );
  const spareContact = await ok('spare contact', api.post('/v1/contacts', { name: 'Spare contact', phoneNumber: uniquePhone() }));
  const tag = await ok('tag', api.post('/v1/tags/service-account', { name: 'Walk tag' }));
  const spareTag = await ok('spare tag', api.post('/v1/tags/service-account', { name: 'Spare tag' }));
  const user = await ok(
    'user',
    t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/users`, { email: 'agent@example.com', name: 'Agent', role: 2 }),
  );
  const recipient = uniquePhone();
  await ok(
    'inbound',
    t.admin.post(`/admin/v1/channels/${channel.id}/sandbox/inbound`, { fromNumber: recipient, type: 'text', text: 'Hi' }),
  );
  const conversation = await waitFor(
    async () => (await api.get(`/v2/conversations/service-account/channels/${channel.id}`)).body.items?.[0],
    15_000,
    'the inbound message to open a conversation',
  );
  const inboundEvent = await waitFor(
    async () => (await api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.items?.[0],
    15_000,
    'the inbound message on the timeline',
  );
  await ok('template', t.admin.post(`/admin/v1/channels/${channel.id}/templates`, TEMPLATE));
  const flow = await ok('flow', api.post('/v1/outbound-ivr-flows', FLOW));
  // Simulate Sandbox WhatsApp User Call needs calling on the channel; its flow answers the call.
  await ok('calling', api.request('PUT', `/v1/channels/${channel.id}/calling`, { json: { enabled: true, inboundFlowId: flow.id } }));
  const ivr = await ok(
    'outbound IVR',
    api.post('/v1/outbound-ivr', { channelId: channel.id, destinationNumber: uniquePhone(), flowId: flow.id, webhookUrl }),
  );
  const scheduledIvr = await ok(
    'scheduled outbound IVR',
    api.post('/v1/outbound-ivr', {
      channelId: channel.id,
      destinationNumber: uniquePhone(),
      flowId: flow.id,
      webhookUrl,
      sendAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
    }),
  );
  const campaign = async (name: string, ...actions: string[]) => {
    const created = await ok(`campaign ${name}`, api.post('/v1/campaigns', campaignBody(channel.id, TEMPLATE.name, contact.id)));
    for (const action of actions) await ok(`campaign ${name} ${action}`, api.post(`/v1/campaigns/${created.id}/${action}`, {}));
    return created.id as string;
  };
  const campaigns = {
    draft: await campaign('draft'),
    toCancel: await campaign('to cancel'),
    scheduled: await campaign('scheduled', 'start'),
    paused: await campaign('paused', 'start', 'pause'),
  };
  const endpoint = await ok(
    'webhook endpoint',
    api.post('/v1/webhook-endpoints', { url: receiver.url('/endpoint'), eventTypes: ['contact.created'] }),
  );
  const deliveryId = await publishEvent(t, ws.workspaceId, webhookUrl);
  await waitFor(
    async () =>
      (await api.get('/v1/webhook-deliveries')).body.items?.find(
        (d: { id: string; status: string }) => d.id === deliveryId && d.status === 'Succeeded',
      ),
    15_000,
    'the webhook delivery',
  );
  return {
    ws,
    spareAccount: { id: spareAccount.id, clientId: spareAccount.clientId, clientSecret: spareAccount.clientSecret },
    channelId: channel.id,
    spareChannelId: spareChannel.id,
    contactId: contact.id,
    spareContactId: spareContact.id,
    properties,
    spareProperty,
    tagId: tag.id,
    spareTagId: spareTag.id,
    conversationId: conversation.id,
    userId: user.userId,
    flowId: flow.id,
    ivrId: ivr.id,
    scheduledIvrId: scheduledIvr.id,
    deliveryId,
    recipient,
    inboundEventId: inboundEvent.eventId,
    templateName: TEMPLATE.name,
    webhookUrl,
    webhookEndpointId: endpoint.id,
    campaigns,
  };
}
