import type { ExamplesObject } from '@nestjs/swagger';

/**
 * Request bodies that work when pressed "Execute" in Swagger UI against the demo workspace
 * (`npm start`): replace the channel id with the one the demo seed prints (or Get Channels lists).
 * The template examples fit the templates the demo seed creates.
 */
const DEMO_CHANNEL_ID = '01936f8e-5a2b-7c3d-8e4f-a1b2c3d4e5f6';

export const TOKEN_REQUEST_EXAMPLES: ExamplesObject = {
  clientCredentials: {
    summary: 'Client credentials in the body',
    value: { grant_type: 'client_credentials', client_id: 'paste-the-demo-client-id', client_secret: 'paste-the-demo-client-secret' },
  },
  basic: {
    summary: 'With HTTP Basic (Authorization: Basic base64(client_id:client_secret))',
    value: { grant_type: 'client_credentials' },
  },
};

export const SEND_TEMPLATE_EXAMPLES: ExamplesObject = {
  bodyAndUrlButton: {
    summary: 'Body placeholders and a dynamic URL button (demo template order_update)',
    value: {
      channelId: DEMO_CHANNEL_ID,
      templateName: 'order_update',
      language: 'en',
      toNumber: '966501234567',
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
      toNumber: '966501234567',
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

export const CREATE_OUTBOUND_IVR_EXAMPLES: ExamplesObject = {
  audioFiles: {
    summary: 'The specification’s fields (PascalCase names work as well): audio files and two options',
    value: {
      channelId: DEMO_CHANNEL_ID,
      externalId: 'order-A-1042-confirmation',
      destinationNumber: '966501234567',
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
  textToSpeech: {
    summary: 'Synthesized speech instead of an audio file',
    value: {
      channelId: DEMO_CHANNEL_ID,
      externalId: 'appointment-77',
      destinationNumber: '966501234567',
      ttsText: 'Press 1 to confirm your appointment on Tuesday, or 2 to cancel it.',
      ttsVoice: 'Female',
      options: [
        { digit: '1', description: 'Confirm' },
        { digit: '2', description: 'Cancel' },
      ],
      webhookUrl: 'https://example.com/webhooks/ivr',
    },
  },
};

export const SAVE_FLOW_EXAMPLES: ExamplesObject = {
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

export const CREATE_CONTACT_EXAMPLES: ExamplesObject = {
  contact: {
    summary: 'A contact with a first note',
    value: {
      name: 'Sara Al-Harbi',
      phoneNumber: '+966 50 123 4567',
      email: 'sara@example.com',
      company: 'Example Trading',
      position: 'Buyer',
      contactType: 1,
      note: 'Met at the Riyadh trade fair.',
    },
  },
};

export const UPDATE_CHANNEL_EXAMPLES: ExamplesObject = {
  webhooks: {
    summary: 'Send both webhooks to a local receiver (npm run webhooks:listen)',
    value: { webhookUrl: 'http://localhost:4000/hooks', postCallWebhookUrl: 'http://localhost:4000/hooks' },
  },
  stopWebhooks: { summary: 'Stop the WhatsApp Message Webhook', value: { webhookUrl: null } },
  rename: { summary: 'Rename the channel', value: { name: 'Support line' } },
};
