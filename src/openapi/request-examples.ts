import type { ExamplesObject, OpenAPIObject } from '@nestjs/swagger';
import { DEMO_CHANNEL_ID } from '../database/demo-channel-id.js';
import { REQUEST_EXAMPLES as WHATSAPP_SEND_EXAMPLES } from '../whatsapp/dto/request-examples.js';
import { ADMIN_REQUEST_EXAMPLES } from './admin-request-examples.js';
import { DEMO_NUMBERS } from './demo-numbers.js';
import { example } from './example-object.js';
import { forEachOperation } from './document-walk.js';

/**
 * Request bodies for Swagger UI's "Try it out" against the demo workspace (`npm start`): they name
 * the demo channel (its id is fixed), its templates (`order_update`, `appointment_reminder`) and
 * {@link DEMO_NUMBERS}. The first example of an operation is the one Swagger UI fills in; it runs as
 * it stands, once the path's ids are typed in (and, for a free-form send, once the sandbox customer
 * has written). Keys are sorted in the document, so each default's key sorts first.
 */
const TOKEN_REQUEST_EXAMPLES: ExamplesObject = {
  clientCredentials: {
    summary: 'Client credentials in the body',
    value: { grant_type: 'client_credentials', client_id: 'paste-the-demo-client-id', client_secret: 'paste-the-demo-client-secret' },
  },
  httpBasic: {
    summary: 'With HTTP Basic (Authorization: Basic base64(client_id:client_secret))',
    value: { grant_type: 'client_credentials' },
  },
};

const SEND_TEMPLATE_EXAMPLES: ExamplesObject = {
  bodyAndUrlButton: {
    summary: 'Body placeholders and a dynamic URL button (demo template order_update)',
    value: {
      channelId: DEMO_CHANNEL_ID,
      templateName: 'order_update',
      language: 'en',
      toNumber: DEMO_NUMBERS.templateRecipient,
      parameters: [
        {
          type: 'Body',
          values: [
            { type: 'text', text: 'Sara' },
            { type: 'text', text: 'A-1042' },
          ],
        },
        { type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'A-1042' }] },
      ],
    },
  },
  headerAndQuickReplies: {
    summary: 'Text header, body, and quick-reply payloads (demo template appointment_reminder)',
    value: {
      channelId: DEMO_CHANNEL_ID,
      templateName: 'appointment_reminder',
      language: 'en',
      toNumber: DEMO_NUMBERS.templateRecipient,
      parameters: [
        { type: 'Header', values: [{ type: 'text', text: 'Dr. Haddad' }] },
        {
          type: 'Body',
          values: [
            { type: 'text', text: 'Sara' },
            { type: 'text', text: 'Tuesday 10:30' },
          ],
        },
        { type: 'Buttons', subType: 'quick_reply', index: '0', values: [{ type: 'text', text: 'CONFIRM-A-1042' }] },
        { type: 'Buttons', subType: 'quick_reply', index: '1', values: [{ type: 'text', text: 'RESCHEDULE-A-1042' }] },
      ],
    },
  },
};

const CREATE_OUTBOUND_IVR_EXAMPLES: ExamplesObject = {
  synthesizedSpeech: {
    summary: 'Synthesized speech: nothing to host (the default)',
    value: {
      channelId: DEMO_CHANNEL_ID,
      externalId: 'appointment-77',
      destinationNumber: DEMO_NUMBERS.callee,
      ttsText: 'Press 1 to confirm your appointment on Tuesday, or 2 to cancel it.',
      ttsVoice: 'Female',
      options: [
        { digit: '1', description: 'Confirm' },
        { digit: '2', description: 'Cancel' },
      ],
      webhookUrl: 'https://example.com/webhooks/ivr',
    },
  },
  withAudioFiles: {
    summary: 'The specification’s fields (PascalCase names work as well): audio files and two options',
    value: {
      channelId: DEMO_CHANNEL_ID,
      externalId: 'order-A-1042-confirmation',
      destinationNumber: DEMO_NUMBERS.callee,
      audioFileUrl: 'https://example.com/audio/confirm-order.wav',
      welcomeMessageFileUrl: 'https://example.com/audio/welcome.wav',
      successMessageFileUrl: 'https://example.com/audio/thank-you.wav',
      failedMessageFileUrl: 'https://example.com/audio/invalid-choice.wav',
      options: [
        { digit: '1', description: 'Confirm the order', responseMessageFileUrl: null },
        { digit: '2', description: 'Cancel the order', responseMessageFileUrl: 'https://example.com/audio/cancelled.wav' },
      ],
      webhookUrl: 'https://example.com/webhooks/ivr',
      maxAudioRetries: 2,
      inputTimeoutMs: 6000,
      digitTimeoutMs: 3000,
    },
  },
  voicemailForMachines: {
    summary: 'Answering-machine detection: a machine gets a voicemail after its beep (result 8 AnsweringMachine)',
    value: {
      channelId: DEMO_CHANNEL_ID,
      externalId: 'appointment-78',
      destinationNumber: DEMO_NUMBERS.callee,
      ttsText: 'Press 1 to confirm your appointment on Tuesday, or 2 to cancel it.',
      options: [
        { digit: '1', description: 'Confirm' },
        { digit: '2', description: 'Cancel' },
      ],
      machineDetection: 'LeaveMessage',
      voicemailTtsText: 'This is Example Clinic about your appointment on Tuesday. Please call us back to confirm it.',
      webhookUrl: 'https://example.com/webhooks/ivr',
    },
  },
};

const SAVE_FLOW_EXAMPLES: ExamplesObject = {
  satisfactionSurvey: {
    summary: 'A two-question survey with a branch and a goodbye',
    value: {
      name: 'Delivery satisfaction survey',
      description: 'Asks whether the delivery arrived, then rates it.',
      startStepId: 'welcome',
      steps: [
        {
          id: 'welcome',
          type: 'Play',
          props: { ttsText: 'Hello, this is Example Shop calling about your delivery.', nextStepId: 'arrived' },
        },
        {
          id: 'arrived',
          type: 'Question',
          props: {
            ttsText: 'Did your order arrive? Press 1 for yes, 2 for no.',
            options: [
              { digit: '1', description: 'Arrived', nextStepId: 'rating' },
              { digit: '2', description: 'Not arrived', nextStepId: 'sorry' },
            ],
            maxAudioRetries: 2,
            noInputStepId: 'goodbye',
          },
        },
        {
          id: 'rating',
          type: 'Question',
          props: {
            ttsText: 'How would you rate the delivery, from 1 to 5?',
            options: ['1', '2', '3', '4', '5'].map((digit) => ({ digit, description: `${digit} stars`, nextStepId: 'goodbye' })),
          },
        },
        { id: 'sorry', type: 'Play', props: { ttsText: 'We are sorry. A colleague will call you today.', nextStepId: 'goodbye' } },
        { id: 'goodbye', type: 'Hangup', props: { ttsText: 'Thank you, goodbye.' } },
      ],
    },
  },
};

const CREATE_CONTACT_EXAMPLES: ExamplesObject = {
  contact: {
    summary: 'A contact with a first note',
    value: {
      name: 'Sara Al-Harbi',
      phoneNumber: DEMO_NUMBERS.newContact,
      email: 'sara@example.com',
      company: 'Example Trading',
      position: 'Buyer',
      contactType: 1,
      note: 'Met at the Riyadh trade fair.',
    },
  },
};

const UPDATE_CHANNEL_EXAMPLES: ExamplesObject = {
  rename: { summary: 'Rename the channel', value: { name: 'Support line' } },
  webhooks: {
    summary: 'Send both webhooks to a local receiver (npm run webhooks:listen)',
    value: { webhookUrl: 'http://localhost:4000/hooks', postCallWebhookUrl: 'http://localhost:4000/hooks' },
  },
  stopWebhooks: { summary: 'Stop the WhatsApp Message Webhook', value: { webhookUrl: null } },
};

const CONTACT_EXAMPLES: Record<string, ExamplesObject> = {
  createContact: CREATE_CONTACT_EXAMPLES,
  updateContact: {
    promoted: example('New position (fields left out are cleared: send the ones to keep)', {
      name: 'Sara Al-Harbi',
      phoneNumber: DEMO_NUMBERS.newContact,
      email: 'sara@example.com',
      company: 'Example Trading',
      position: 'Head of purchasing',
      contactType: 1,
    }),
  },
  updateContactConsent: {
    optIn: example('Opted in to marketing on WhatsApp', { whatsAppMarketing: { status: 'OptedIn', source: 'Api' } }),
    optOutCalls: example('Opted out of calls', { calls: { status: 'OptedOut' } }),
  },
  createBulkContactsVCards: {
    oneCard: example('One vCard 3.0', {
      vCards: [
        'BEGIN:VCARD\nVERSION:3.0\nFN:Khalid Nasser\nTEL;TYPE=CELL:+966550100020\nEMAIL:khalid@example.com\nORG:Nasser Foods\nEND:VCARD',
      ],
    }),
  },
  searchContacts: {
    byText: example('By name, number, email or company, newest first', {
      filter: 'Sara',
      sorting: 'CreationTime DESC',
      maxResultCount: 20,
    }),
    optedIn: example('Opted in to WhatsApp marketing', { consent: { whatsAppMarketing: 'OptedIn' } }),
  },
  contactPropertiesStatistics: {
    all: example('Over every contact', {}),
    byText: example('Over the contacts matching a text', { filter: 'Sara' }),
  },
  createContactProperty: {
    cityText: example('A Text property', { name: 'City', type: 'Text', isRequired: false }),
    tierSelect: example('A Select property and its options', { name: 'Tier', type: 'Select', selectOptions: ['Gold', 'Silver', 'Bronze'] }),
  },
  updateContactProperty: {
    rename: example('Rename it (the type cannot change)', { name: 'Home city' }),
    selectOptions: example('A Select property’s options', {
      selectOptions: [{ value: 'Gold', color: '#d4af37' }, 'Silver', 'Bronze', 'Platinum'],
    }),
  },
  setPropertyValueOnContact: {
    cityText: example('A Text property (City)', { value: 'Riyadh' }),
    remove: example('Remove the value', { value: null }),
    tierSelect: example('A Select property: one of its options (Tier)', { value: 'Gold' }),
  },
};

const CONVERSATION_EXAMPLES: Record<string, ExamplesObject> = {
  createConversation: {
    open: example('Open a conversation with a new customer', {
      channelId: DEMO_CHANNEL_ID,
      phoneNumber: DEMO_NUMBERS.newConversation,
      contactName: 'Nora Saleh',
    }),
  },
  assignConversation: { unassign: example('Nobody (assign by a user id from Get Workspace Users)', { assignedUserId: null }) },
  setConversationStatus: { close: example('Close it', { status: 2 }), reopen: example('Open it again', { status: 1 }) },
  tagAConversation: { untag: example('No tags (the tags become exactly these ids: Create Tag answers one)', { tagIds: [] }) },
  createTag: { vip: example('A pinned tag', { name: 'VIP', description: 'Our best customers', icon: 'star', isPinned: true }) },
  updateTag: { unpin: example('Rename and unpin it', { name: 'VIP customer', isPinned: false }) },
};

const WEBHOOK_RECEIVER = 'http://localhost:4000/hooks';

const WEBHOOK_EXAMPLES: Record<string, ExamplesObject> = {
  createWebhookEndpoint: {
    localReceiver: example('Every event of the demo channel to the local receiver (npm run webhooks:listen)', {
      url: WEBHOOK_RECEIVER,
      description: 'Local receiver',
      eventTypes: ['whatsapp.message', 'contact.created'],
      channelIds: [DEMO_CHANNEL_ID],
      rateLimitPerSecond: 20,
    }),
  },
  updateWebhookEndpoint: {
    pause: example('Turn it off for now', { disabled: true }),
    resume: example('Turn it on again', { disabled: false }),
  },
  recoverWebhookEndpoint: { lastDay: example('Send the failed deliveries again', { since: '2026-01-01T00:00:00Z' }) },
  sendTestWebhookEvent: { message: example('A sample WhatsApp message event', { eventType: 'whatsapp.message' }) },
};

const CAMPAIGN_EXAMPLES: Record<string, ExamplesObject> = {
  createCampaign: {
    shippingNotice: example('order_update to the contacts matching “Sara”, each named in the body', {
      name: 'Shipping notice',
      channelId: DEMO_CHANNEL_ID,
      kind: 'WhatsAppTemplate',
      template: {
        templateName: 'order_update',
        language: 'en',
        parameters: [
          {
            type: 'Body',
            values: [
              { type: 'text', text: '{{contact.name}}' },
              { type: 'text', text: 'A-1042' },
            ],
          },
          { type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'A-1042' }] },
        ],
      },
      audience: { search: { filter: 'Sara' } },
    }),
  },
};

const SEND_POLICY_EXAMPLES: Record<string, ExamplesObject> = {
  updateSendPolicy: {
    quietNights: example('No marketing at night, at most 2 marketing templates a week', {
      quietHours: { start: '21:00', end: '09:00', appliesTo: ['Marketing'] },
      timezone: { fromPhoneNumber: true, default: 'Asia/Riyadh' },
      frequencyCap: { marketingPerDays: { count: 2, days: 7 } },
    }),
  },
};

const CALL_INTELLIGENCE_EXAMPLES: Record<string, ExamplesObject> = {
  setCallIntelligence: {
    byOpenAi: example('Transcripts with whisper-1, summaries with gpt-4o-mini, one evaluation criterion', {
      transcription: {
        provider: 'openai-compatible',
        baseUrl: 'https://api.openai.com/v1',
        model: 'whisper-1',
        apiKeyRef: 'sk-paste-your-key',
      },
      summary: {
        provider: 'openai-compatible',
        baseUrl: 'https://api.openai.com/v1',
        model: 'gpt-4o-mini',
        apiKeyRef: 'env:CALL_INTELLIGENCE_KEY_OPENAI',
      },
      evaluationCriteria: [{ name: 'Order confirmed', description: 'The customer confirmed the order.' }],
    }),
    off: example('Off (no transcripts or summaries)', { transcription: { provider: 'none' }, summary: { provider: 'none' } }),
  },
};

const CREATE_TEMPLATE_EXAMPLES: ExamplesObject = {
  components: example('Own components, each placeholder with an example (on the sandbox demo channel: approved at once)', {
    channelId: DEMO_CHANNEL_ID,
    name: 'spring_sale',
    language: 'en',
    category: 'MARKETING',
    components: [
      { type: 'BODY', text: 'Hi {{1}}, our spring sale starts {{2}}.', example: { body_text: [['Sara', 'Monday']] } },
      { type: 'FOOTER', text: 'Reply STOP to opt out' },
    ],
  }),
  fromLibrary: example("From Meta's template library", {
    channelId: DEMO_CHANNEL_ID,
    name: 'payment_due',
    language: 'en',
    category: 'UTILITY',
    libraryTemplateName: 'payment_reminder_1',
  }),
};

const WHATSAPP_USAGE_EXAMPLES: Record<string, ExamplesObject> = {
  setRateCard: {
    euros: example('Your own prices per message, in euros (the usage answers then estimate a cost)', {
      currency: 'EUR',
      perCategory: { marketing: 0.0456, marketing_lite: 0.0456, utility: 0.0132, authentication: 0.0132 },
    }),
  },
};

const WHATSAPP_CALLING_EXAMPLES: Record<string, ExamplesObject> = {
  setWhatsAppCalling: {
    businessHours: example(
      'Calls on, taken Sunday to Thursday 09:00-17:00 Riyadh time, callers asked to allow call-backs, call permission asked for inside the service window only (no permission template: set an approved template of the channel with a call permission button to ask outside it)',
      {
        enabled: true,
        callHours: {
          timezoneId: 'Asia/Riyadh',
          weeklyOperatingHours: ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY'].map((dayOfWeek) => ({
            dayOfWeek,
            openTime: '0900',
            closeTime: '1700',
          })),
          holidaySchedule: [{ date: '2026-12-31', startTime: '1200', endTime: '2359' }],
        },
        callbackPermission: true,
        inboundFlowId: null,
        afterHoursFlowId: null,
        // { name, language }: an APPROVED template of this channel with a call permission button (the demo channel has none).
        permissionTemplate: null,
      },
    ),
    callsOff: example('Calls off', { enabled: false }),
  },
};

/** Each operation's request examples, by operationId (the unit test requires one for every JSON body). */
export const REQUEST_BODY_EXAMPLES: Record<string, ExamplesObject> = {
  serviceLogin: TOKEN_REQUEST_EXAMPLES,
  updateChannelPartial: UPDATE_CHANNEL_EXAMPLES,
  sendTemplate: SEND_TEMPLATE_EXAMPLES,
  createTemplate: CREATE_TEMPLATE_EXAMPLES,
  ...WHATSAPP_SEND_EXAMPLES,
  createOutboundIvr: CREATE_OUTBOUND_IVR_EXAMPLES,
  createOutboundIvrFlow: SAVE_FLOW_EXAMPLES,
  updateOutboundIvrFlow: SAVE_FLOW_EXAMPLES,
  ...ADMIN_REQUEST_EXAMPLES,
  ...CONTACT_EXAMPLES,
  ...CONVERSATION_EXAMPLES,
  ...WEBHOOK_EXAMPLES,
  ...CAMPAIGN_EXAMPLES,
  ...SEND_POLICY_EXAMPLES,
  ...CALL_INTELLIGENCE_EXAMPLES,
  ...WHATSAPP_USAGE_EXAMPLES,
  ...WHATSAPP_CALLING_EXAMPLES,
};

/** Puts {@link REQUEST_BODY_EXAMPLES} on the JSON request bodies; an entry naming no such body fails the build. */
export function addRequestExamples(document: OpenAPIObject): void {
  const unused = new Set(Object.keys(REQUEST_BODY_EXAMPLES));
  forEachOperation(document, (operation) => {
    const examples = operation.operationId ? REQUEST_BODY_EXAMPLES[operation.operationId] : undefined;
    const body =
      operation.requestBody && 'content' in operation.requestBody ? operation.requestBody.content['application/json'] : undefined;
    if (!examples || !body) return;
    body.examples = examples;
    unused.delete(operation.operationId!);
  });
  if (unused.size > 0) throw new Error(`OpenAPI: request examples for no JSON request body: ${[...unused].join(', ')}.`);
}
