import { FLOW, TEMPLATE, uniquePhone, uniqueSuffix, type WalkWorld } from './walk-world.js';

/** One operation of the OpenAPI document, as the walk needs it. */
export interface WalkOperation {
  operationId: string;
  method: string;
  /** With `{param}` placeholders. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  headerParams: string[];
  /** The request body's media type, if the operation takes one. */
  bodyType?: 'json' | 'multipart';
  /** Top-level properties of the body schema, including optional ones the valid body leaves out. */
  bodyProperties: string[];
  auth: 'bearer' | 'admin' | 'public';
}

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

function schemaProperties(doc: Doc, schema: any): string[] {
  const resolved = schema?.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop()!] : schema;
  return Object.keys(resolved?.properties ?? {});
}

export function operationsOf(doc: Doc): WalkOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): WalkOperation => {
      const params: Array<{ name: string; in: string }> = op.parameters ?? [];
      const content: Record<string, { schema: unknown }> = op.requestBody?.content ?? {};
      const bodyType = 'application/json' in content ? 'json' : 'multipart/form-data' in content ? 'multipart' : undefined;
      const schema = content['application/json']?.schema ?? content['multipart/form-data']?.schema;
      const security: Array<Record<string, unknown>> = op.security ?? [];
      return {
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        headerParams: params.filter((p) => p.in === 'header').map((p) => p.name),
        bodyType,
        bodyProperties: schema ? schemaProperties(doc, schema) : [],
        auth: security.some((s) => 'admin-key' in s) ? 'admin' : security.some((s) => 'bearer' in s) ? 'bearer' : 'public',
      };
    }),
  );
}

/** Valid inputs of an operation: ids for its path (several where the body depends on which), a query, a body. */
export interface ValidInputs {
  ids: Record<string, string[]>;
  query: Record<string, string>;
  /** A fresh valid body (unique phone numbers and names), given the chosen path ids. */
  body?: (ids: Record<string, string>) => unknown;
}

const MEDIA = 'https://media.example.com';

/** Operations that spend ~50 ms of CPU on a scrypt hash per accepted call: walked with the core values only. */
export const COSTLY_OPERATIONS: Record<string, string> = {
  Token_token: 'verifies the client secret',
  Admin_createServiceAccount: 'hashes the new client secret',
};

/** Operations whose valid call is not a 2xx in this world, and why. */
export const EXPECTED_REFUSALS: Record<string, string> = {
  WhatsAppAdmin_syncTemplates: 'templates are pulled only for Cloud API channels; the walk uses the sandbox',
};

/** Operations that remove what others use run last, in this order. */
export const RUN_LAST = [
  'Contacts_deleteProperty',
  'Conversations_removeTag',
  'Tags_remove',
  'Contacts_remove',
  'ContactProperties_remove',
  'OutboundIvrFlows_remove',
  'Admin_deleteChannel',
  'Admin_revokeServiceAccount',
];

function idsByName(w: WalkWorld): Record<string, string[]> {
  return {
    workspaceId: [w.ws.workspaceId],
    channelId: [w.channelId],
    contactId: [w.contactId],
    propertyId: [w.properties.text, w.properties.number, w.properties.select, w.properties.date],
    conversationId: [w.conversationId],
    tagId: [w.tagId],
  };
}

/** `{id}` names a different resource on each path. */
function idParam(op: WalkOperation, w: WalkWorld): string[] | undefined {
  const byId: Record<string, string> = {
    Contacts_get: w.contactId,
    Contacts_update: w.spareContactId,
    Contacts_remove: w.spareContactId,
    ContactProperties_update: w.spareProperty,
    ContactProperties_remove: w.properties.number,
    PropertyStatistics_computeAll: w.spareProperty,
    PropertyStatistics_compute: w.spareProperty,
    OutboundIvr_get: w.ivrId,
    OutboundIvr_cancel: w.ivrId,
    OutboundIvrFlows_get: w.flowId,
    OutboundIvrFlows_update: w.flowId,
    OutboundIvrFlows_remove: w.flowId,
    Tags_update: w.spareTagId,
    Tags_remove: w.spareTagId,
    Webhooks_redeliver: w.deliveryId,
    Admin_revokeServiceAccount: w.spareAccount.id,
  };
  return byId[op.operationId] ? [byId[op.operationId]] : undefined;
}

const searchBody = (w: WalkWorld) => ({
  skipCount: 0,
  maxResultCount: 10,
  sorting: 'Name ASC',
  filter: 'Walk',
  tagIds: [w.tagId],
  customPropertyFilters: [
    { propertyDefinitionId: w.properties.text, operator: 3, value: 'x' },
    { propertyDefinitionId: w.properties.number, operator: 6, value: 1 },
    { propertyDefinitionId: w.properties.date, operator: 5, value: '2026-01-01' },
    { propertyDefinitionId: w.properties.select, operator: 1, value: 'Gold' },
  ],
});

const contactBody = () => ({
  name: 'Walk contact',
  phoneNumber: uniquePhone(),
  email: `walk${uniqueSuffix()}@example.com`,
  company: 'ACME',
  position: 'Buyer',
  contactType: 1,
  customFields: { tier: 'gold', nested: { list: [1, 'two', null] } },
  note: 'A note',
});

const channelBody = (w: WalkWorld) => ({
  name: 'Walk channel',
  type: 3,
  icon: 'phone',
  phoneNumber: uniquePhone(),
  webhookUrl: w.webhookUrl,
  postCallWebhookUrl: w.webhookUrl,
  whatsApp: { provider: 'sandbox' },
  voice: { provider: 'sandbox', sandbox: { answer: true, pressDigits: ['1'], ringMs: 0, talkMs: 0 } },
});

const send = (w: WalkWorld, extra: Record<string, unknown>) => () => ({ channelId: w.channelId, toNumber: w.recipient, ...extra });

/** A value of each custom property type for Set Property Value on Contact. */
function propertyValue(w: WalkWorld, propertyId: string): unknown {
  const { text, number, select } = w.properties;
  return propertyId === text ? 'Some text' : propertyId === number ? 42.5 : propertyId === select ? 'Gold' : '2026-03-01';
}

function bodies(w: WalkWorld): Record<string, ValidInputs['body']> {
  return {
    Admin_createWorkspace: () => ({ name: `Walk ${uniqueSuffix()}` }),
    Admin_createChannel: () => channelBody(w),
    Admin_updateChannel: () => channelBody(w),
    Admin_createServiceAccount: () => ({ name: 'walk' }),
    Admin_createUser: () => ({
      email: `agent${uniqueSuffix()}@example.com`,
      name: 'Agent',
      role: 2,
      phoneNumber: uniquePhone(),
      logoUrl: `${MEDIA}/logo.png`,
      isAiAgent: false,
    }),
    WhatsAppAdmin_sandboxInbound: () => ({
      fromNumber: w.recipient,
      type: 'text',
      text: 'Hello',
      payload: 'p',
      replyToMessageId: 'wamid.x',
    }),
    WhatsAppAdmin_createTemplate: () => ({ ...TEMPLATE, name: `walk_${uniqueSuffix()}` }),
    Token_token: () => ({
      grant_type: 'client_credentials',
      client_id: w.spareAccount.clientId,
      client_secret: w.spareAccount.clientSecret,
    }),
    ContactProperties_create: () => ({
      name: `Walk property ${uniqueSuffix()}`,
      type: 3,
      isRequired: false,
      selectOptions: ['A', { value: 'B', color: '#ffffff' }],
    }),
    ContactProperties_update: () => ({
      name: `Walk select ${uniqueSuffix()}`,
      type: 3,
      isRequired: false,
      selectOptions: ['Gold', { value: 'Silver', color: '#c0c0c0' }],
    }),
    PropertyStatistics_compute: () => searchBody(w),
    Contacts_search: () => searchBody(w),
    Contacts_create: contactBody,
    Contacts_update: contactBody,
    Contacts_importVCards: () => ({
      vCards: [`BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Walk Card\r\nTEL:+${uniquePhone()}\r\nEMAIL:card@example.com\r\nEND:VCARD\r\n`],
    }),
    Contacts_setProperty: (ids) => ({ value: propertyValue(w, ids.propertyId) }),
    OutboundIvr_create: () => ({
      channelId: w.channelId,
      destinationNumber: uniquePhone(),
      externalId: `walk-${uniqueSuffix()}`,
      audioFileUrl: `${MEDIA}/question.wav`,
      welcomeMessageFileUrl: `${MEDIA}/welcome.wav`,
      successMessageFileUrl: `${MEDIA}/ok.wav`,
      failedMessageFileUrl: `${MEDIA}/failed.wav`,
      options: [
        { digit: '1', description: 'Yes', responseMessageFileUrl: `${MEDIA}/yes.wav` },
        { digit: '2', description: 'No' },
      ],
      webhookUrl: w.webhookUrl,
      maxAudioRetries: 1,
      inputTimeoutMs: 5000,
      digitTimeoutMs: 2000,
    }),
    OutboundIvrFlows_create: () => ({ ...FLOW, name: `Walk flow ${uniqueSuffix()}` }),
    OutboundIvrFlows_update: () => ({ ...FLOW, name: `Walk flow ${uniqueSuffix()}` }),
    Tags_create: () => ({ name: `Walk tag ${uniqueSuffix()}`, icon: 'star', description: 'A tag', isPinned: true }),
    Tags_update: () => ({ name: `Walk tag ${uniqueSuffix()}`, icon: 'star', description: 'A tag', isPinned: false }),
    WhatsApp_sendText: send(w, { text: 'Hello', previewUrl: false, replyToMessageId: 'wamid.abc' }),
    WhatsApp_sendImage: send(w, { imageUrl: `${MEDIA}/a.jpg`, caption: 'A picture' }),
    WhatsApp_sendAudio: send(w, { audioUrl: `${MEDIA}/a.mp3` }),
    WhatsApp_sendVideo: send(w, { videoUrl: `${MEDIA}/a.mp4`, caption: 'A film' }),
    WhatsApp_sendFile: send(w, { fileUrl: `${MEDIA}/a.pdf`, fileName: 'a.pdf', caption: 'A file' }),
    WhatsApp_sendInteractiveButtons: send(w, {
      body: 'Pick one',
      header: 'Hi',
      footer: 'Bye',
      buttons: [
        { id: 'yes', title: 'Yes' },
        { id: 'no', title: 'No' },
      ],
    }),
    WhatsApp_sendLocation: send(w, { latitude: 24.7136, longitude: 46.6753, name: 'Office', address: 'King Fahd Road, Riyadh' }),
    WhatsApp_sendContacts: send(w, {
      contacts: [
        {
          name: { formattedName: 'Sara Ali', firstName: 'Sara', lastName: 'Ali' },
          phones: [{ phone: '+966501234567', type: 'CELL' }],
          emails: [{ email: 'sara@example.com', type: 'WORK' }],
          org: { company: 'Acme', title: 'Buyer' },
        },
      ],
    }),
    WhatsApp_sendReaction: send(w, { messageId: w.inboundEventId, emoji: '👍' }),
    WhatsApp_sendList: send(w, {
      body: 'Pick a slot',
      header: 'Slots',
      footer: 'Thanks',
      buttonText: 'Choose',
      sections: [{ title: 'Morning', rows: [{ id: 'slot-9', title: '9:00', description: 'Nine o’clock' }] }],
    }),
    WhatsApp_sendCtaUrl: send(w, { body: 'Track your order', displayText: 'Track', url: 'https://example.com/track' }),
    WhatsApp_markAsRead: () => ({ channelId: w.channelId, messageId: w.inboundEventId, typingIndicator: true }),
    WhatsApp_sendTemplate: () => ({
      channelId: w.channelId,
      templateName: w.templateName,
      language: 'en_US',
      toNumber: uniquePhone(),
      parameters: [
        { type: 'Header', values: [{ type: 'text', text: 'A-17' }] },
        { type: 'Body', values: [{ type: 'text', text: 'Sara' }] },
        { type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'A-17' }] },
      ],
    }),
    Conversations_create: () => ({ channelId: w.channelId, phoneNumber: uniquePhone(), contactName: 'Walk', assignToUserId: w.userId }),
    Conversations_assign: () => ({ assignedUserId: w.userId }),
    Conversations_status: () => ({ status: 1 }),
    Conversations_tag: () => ({ tagIds: [w.tagId] }),
  };
}

const QUERIES: Record<string, Record<string, string>> = {
  Contacts_list: { filter: 'Walk', name: 'Walk', phoneNumber: '966', sorting: 'Name DESC' },
  Conversations_list: { status: '1', getUnAssigned: 'false', name: 'a', fromDate: '2026-01-01T00:00:00Z', sorting: 'LastActivityAt DESC' },
  OutboundIvr_list: { status: '1', externalId: 'walk-1' },
  OutboundIvrFlows_list: { name: 'Walk', sorting: 'Name ASC' },
  WhatsApp_templatesList: { name: 'walk', language: 'en_US', status: 'APPROVED' },
  Webhooks_list: { status: 'Succeeded' },
};

export function validInputs(op: WalkOperation, w: WalkWorld): ValidInputs {
  const byName = idsByName(w);
  const ids = Object.fromEntries(
    op.pathParams.map((name) => {
      if (name === 'id') return [name, idParam(op, w) ?? [w.contactId]];
      if (name === 'channelId' && op.path.includes('/workspaces/')) return [name, [w.spareChannelId]];
      return [name, byName[name] ?? [w.contactId]];
    }),
  );
  const query = { skipCount: '0', maxResultCount: '10', ...QUERIES[op.operationId] };
  for (const key of Object.keys(query)) if (!op.queryParams.includes(key)) delete query[key as keyof typeof query];
  return { ids, query, body: op.bodyType === 'json' ? (bodies(w)[op.operationId] ?? (() => ({}))) : undefined };
}
