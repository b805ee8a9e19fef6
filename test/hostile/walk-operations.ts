import { campaignBody, FLOW, TEMPLATE, uniquePhone, uniqueSuffix, type WalkWorld } from './walk-world.js';

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
  serviceLogin: 'verifies the client secret',
  createServiceAccount: 'hashes the new client secret',
};

/** Operations whose valid call is not a 2xx in this world, and why. */
export const EXPECTED_REFUSALS: Record<string, string> = {
  syncTemplates: 'templates are pulled only for Cloud API channels; the walk uses the sandbox',
  getRateCard: 'a 404 until the workspace sets a rate card, and the walk reads it before Set Rate Card',
  deleteTemplate: "deletes every language of a name: the walk's template is needed by its sends, so it names one not stored (a 404)",
};

/** Operations that remove what others use run last, in this order. */
export const RUN_LAST = [
  'deletePropertyValueOnContact',
  'removeTagFromConversation',
  'deleteTag',
  'deleteContact',
  'deleteContactProperty',
  'deleteOutboundIvrFlow',
  'deleteChannel',
  'deleteWebhookEndpoint',
  'revokeServiceAccount',
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
    getContactById: w.contactId,
    updateContact: w.spareContactId,
    deleteContact: w.spareContactId,
    updateContactProperty: w.spareProperty,
    deleteContactProperty: w.properties.number,
    contactPropertiesStatisticsAllContacts: w.spareProperty,
    contactPropertiesStatistics: w.spareProperty,
    getOutboundIvrRequest: w.ivrId,
    getOutboundIvrTranscript: w.ivrId,
    cancelOutboundIvrRequest: w.ivrId,
    cancelScheduledSend: w.scheduledIvrId,
    getOutboundIvrFlow: w.flowId,
    updateOutboundIvrFlow: w.flowId,
    deleteOutboundIvrFlow: w.flowId,
    updateTag: w.spareTagId,
    deleteTag: w.spareTagId,
    redeliverWebhook: w.deliveryId,
    getWebhookEndpoint: w.webhookEndpointId,
    updateWebhookEndpoint: w.webhookEndpointId,
    deleteWebhookEndpoint: w.webhookEndpointId,
    getWebhookEndpointSecret: w.webhookEndpointId,
    rotateWebhookEndpointSecret: w.webhookEndpointId,
    sendTestWebhookEvent: w.webhookEndpointId,
    recoverWebhookEndpoint: w.webhookEndpointId,
    revokeServiceAccount: w.spareAccount.id,
    getCampaign: w.campaigns.draft,
    listCampaignRecipients: w.campaigns.draft,
    startCampaign: w.campaigns.draft,
    pauseCampaign: w.campaigns.scheduled,
    resumeCampaign: w.campaigns.paused,
    cancelCampaign: w.campaigns.toCancel,
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
    createWorkspace: () => ({ name: `Walk ${uniqueSuffix()}` }),
    createChannel: () => channelBody(w),
    updateChannel: () => channelBody(w),
    createServiceAccount: () => ({ name: 'walk' }),
    createWorkspaceUser: () => ({
      email: `agent${uniqueSuffix()}@example.com`,
      name: 'Agent',
      role: 2,
      phoneNumber: uniquePhone(),
      logoUrl: `${MEDIA}/logo.png`,
      isAiAgent: false,
    }),
    injectSandboxInboundMessage: () => ({
      fromNumber: w.recipient,
      type: 'text',
      text: 'Hello',
      payload: 'p',
      replyToMessageId: 'wamid.x',
    }),
    createSandboxTemplate: () => ({ ...TEMPLATE, name: `walk_${uniqueSuffix()}` }),
    serviceLogin: () => ({
      grant_type: 'client_credentials',
      client_id: w.spareAccount.clientId,
      client_secret: w.spareAccount.clientSecret,
    }),
    createContactProperty: () => ({
      name: `Walk property ${uniqueSuffix()}`,
      type: 3,
      isRequired: false,
      selectOptions: ['A', { value: 'B', color: '#ffffff' }],
    }),
    updateContactProperty: () => ({
      name: `Walk select ${uniqueSuffix()}`,
      type: 3,
      isRequired: false,
      selectOptions: ['Gold', { value: 'Silver', color: '#c0c0c0' }],
    }),
    contactPropertiesStatistics: () => searchBody(w),
    searchContacts: () => ({ ...searchBody(w), consent: { whatsAppMarketing: 'Unknown', calls: 'Unknown' } }),
    updateContactConsent: () => ({
      whatsAppMarketing: { status: 'OptedIn', source: 'Api' },
      calls: { status: 'OptedIn', source: 'Import' },
    }),
    setWhatsAppCalling: () => ({
      enabled: true,
      callHours: { timezoneId: 'Asia/Riyadh', weeklyOperatingHours: [{ dayOfWeek: 'SUNDAY', openTime: '0900', closeTime: '1700' }] },
      callbackPermission: true,
    }),
    setRateCard: () => ({ currency: 'EUR', perCategory: { marketing: 0.0456, utility: 0.0132 } }),
    createTemplate: () => ({
      channelId: w.channelId,
      name: `walk_template_${uniquePhone().replace(/\D/g, '')}`,
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hello {{1}}', example: { body_text: [['Sara']] } }],
    }),
    updateSendPolicy: () => ({ stopWords: ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء', 'HALT'], startWords: ['START', 'اشتراك'] }),
    setCallIntelligence: () => ({
      transcription: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'whisper-1', apiKeyRef: 'sk-walk' },
      summary: { provider: 'none' },
    }),
    injectSandboxUserPreference: () => ({ fromNumber: w.recipient, value: 'resume' }),
    injectSandboxQualityUpdate: () => ({ event: 'UPGRADE', messagingLimit: 'TIER_10K' }),
    setSandboxAnsweringMachines: () => ({ numbers: [uniquePhone()] }),
    simulateSandboxWhatsAppUserCall: () => ({ fromNumber: uniquePhone() }),
    createContact: contactBody,
    updateContact: contactBody,
    createBulkContactsVCards: () => ({
      vCards: [`BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Walk Card\r\nTEL:+${uniquePhone()}\r\nEMAIL:card@example.com\r\nEND:VCARD\r\n`],
    }),
    setPropertyValueOnContact: (ids) => ({ value: propertyValue(w, ids.propertyId) }),
    createOutboundIvr: () => ({
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
    createOutboundIvrFlow: () => ({ ...FLOW, name: `Walk flow ${uniqueSuffix()}` }),
    updateOutboundIvrFlow: () => ({ ...FLOW, name: `Walk flow ${uniqueSuffix()}` }),
    createCampaign: () => campaignBody(w.channelId, w.templateName, w.contactId),
    createTag: () => ({ name: `Walk tag ${uniqueSuffix()}`, icon: 'star', description: 'A tag', isPinned: true }),
    updateTag: () => ({ name: `Walk tag ${uniqueSuffix()}`, icon: 'star', description: 'A tag', isPinned: false }),
    sendText: send(w, { text: 'Hello', previewUrl: false, replyToMessageId: w.inboundEventId }),
    sendImage: send(w, { imageUrl: `${MEDIA}/a.jpg`, caption: 'A picture' }),
    sendAudio: send(w, { audioUrl: `${MEDIA}/a.mp3` }),
    sendVideo: send(w, { videoUrl: `${MEDIA}/a.mp4`, caption: 'A film' }),
    sendFile: send(w, { fileUrl: `${MEDIA}/a.pdf`, fileName: 'a.pdf', caption: 'A file' }),
    sendInteractiveButtons: send(w, {
      body: 'Pick one',
      header: 'Hi',
      footer: 'Bye',
      buttons: [
        { id: 'yes', title: 'Yes' },
        { id: 'no', title: 'No' },
      ],
    }),
    sendLocation: send(w, { latitude: 24.7136, longitude: 46.6753, name: 'Office', address: 'King Fahd Road, Riyadh' }),
    sendContacts: send(w, {
      contacts: [
        {
          name: { formattedName: 'Sara Ali', firstName: 'Sara', lastName: 'Ali' },
          phones: [{ phone: '+966501234567', type: 'CELL' }],
          emails: [{ email: 'sara@example.com', type: 'WORK' }],
          org: { company: 'Acme', title: 'Buyer' },
        },
      ],
    }),
    sendReaction: send(w, { messageId: w.inboundEventId, emoji: '👍' }),
    sendList: send(w, {
      body: 'Pick a slot',
      header: 'Slots',
      footer: 'Thanks',
      buttonText: 'Choose',
      sections: [{ title: 'Morning', rows: [{ id: 'slot-9', title: '9:00', description: 'Nine o’clock' }] }],
    }),
    sendCtaUrl: send(w, { body: 'Track your order', displayText: 'Track', url: 'https://example.com/track' }),
    markAsRead: () => ({ channelId: w.channelId, messageId: w.inboundEventId, typingIndicator: true }),
    sendTemplate: () => ({
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
    createConversation: () => ({ channelId: w.channelId, phoneNumber: uniquePhone(), contactName: 'Walk', assignToUserId: w.userId }),
    assignConversation: () => ({ assignedUserId: w.userId }),
    setConversationStatus: () => ({ status: 1 }),
    tagAConversation: () => ({ tagIds: [w.tagId] }),
    createWebhookEndpoint: () => ({
      url: `${w.webhookUrl}/${uniqueSuffix()}`,
      description: 'Walk endpoint',
      eventTypes: ['contact.created', 'conversation.created'],
      channelIds: [w.channelId],
      rateLimitPerSecond: 50,
      ordered: true,
      headers: { 'X-Walk': 'yes' },
      disabled: false,
    }),
    updateChannelPartial: () => ({ name: 'Spare', icon: 'walk', webhookUrl: w.webhookUrl, postCallWebhookUrl: w.webhookUrl }),
    updateWebhookEndpoint: () => ({ description: 'Walk endpoint, changed', rateLimitPerSecond: 20, ordered: false }),
    rotateWebhookEndpointSecret: () => ({}),
    sendTestWebhookEvent: () => ({ eventType: 'contact.created' }),
    recoverWebhookEndpoint: () => ({ since: '2026-01-01T00:00:00Z' }),
  };
}

const QUERIES: Record<string, Record<string, string>> = {
  getContacts: { filter: 'Walk', name: 'Walk', phoneNumber: '966', sorting: 'Name DESC' },
  listConversations: { status: '1', getUnAssigned: 'false', name: 'a', fromDate: '2026-01-01T00:00:00Z', sorting: 'LastActivityAt DESC' },
  listOutboundIvrRequests: { status: '1', externalId: 'walk-1' },
  listOutboundIvrFlows: { name: 'Walk', sorting: 'Name ASC' },
  listTemplatesServiceAccount: { name: 'walk', language: 'en_US', status: 'APPROVED' },
  listWebhookDeliveries: { status: 'Succeeded' },
};

export function validInputs(op: WalkOperation, w: WalkWorld): ValidInputs {
  const byName = idsByName(w);
  const ids = Object.fromEntries(
    op.pathParams.map((name) => {
      if (name === 'id') return [name, idParam(op, w) ?? [w.contactId]];
      // Admin channel operations and the partial update (whose hostile nulls clear webhook URLs) change the spare channel.
      if (name === 'channelId' && (op.path.includes('/workspaces/') || op.operationId === 'updateChannelPartial')) {
        return [name, [w.spareChannelId]];
      }
      return [name, byName[name] ?? [w.contactId]];
    }),
  );
  const query = { skipCount: '0', maxResultCount: '10', channelId: w.channelId, ...QUERIES[op.operationId] };
  for (const key of Object.keys(query)) if (!op.queryParams.includes(key)) delete query[key as keyof typeof query];
  return { ids, query, body: op.bodyType === 'json' ? (bodies(w)[op.operationId] ?? (() => ({}))) : undefined };
}
