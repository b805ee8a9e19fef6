import type { ExamplesObject } from '@nestjs/swagger';
import { ChannelType } from '../channels/channel-type.js';
import { DEMO_NUMBERS } from './demo-numbers.js';
import { example } from './example-object.js';

/** A second channel like the demo one (sandbox WhatsApp and voice), so that Update Channel's example leaves the demo channel alone. */
const SANDBOX_CHANNEL_CONFIG = {
  name: 'Second sandbox line',
  type: ChannelType.PhoneNumberAndWhatsapp,
  phoneNumber: '+14155550101',
  whatsApp: { provider: 'sandbox' },
  voice: { provider: 'sandbox', sandbox: { answer: true, pressDigits: ['1'], ringMs: 1000, talkMs: 2000 } },
};

/** The admin API's request bodies (the admin key in Authorize's `admin-key` form), on the demo channel. */
export const ADMIN_REQUEST_EXAMPLES: Record<string, ExamplesObject> = {
  createWorkspace: { acme: example('A workspace', { name: 'Acme' }) },
  createServiceAccount: { crm: example('A service account for the CRM', { name: 'CRM' }) },
  createWorkspaceUser: {
    member: example('A member', { email: 'agent@acme.example', name: 'Layla Agent', role: 2, phoneNumber: '+966550100010' }),
  },
  createChannel: { sandbox: example('A sandbox channel (WhatsApp and voice)', SANDBOX_CHANNEL_CONFIG) },
  updateChannel: {
    sandbox: example('The whole configuration (credentials left out keep their stored values)', {
      ...SANDBOX_CHANNEL_CONFIG,
      name: 'Support sandbox',
    }),
  },
  setChannelLimits: {
    tier: example("Meta's default throughput, the 1,000-recipient tier, 10 calls at once", {
      throughputPerSecond: 80,
      messagingLimit: 1000,
      callsPerSecond: 1,
      concurrentCalls: 10,
    }),
  },
  setSandboxAnsweringMachines: {
    machine: example("Create Outbound IVR's callee answers with a machine", { numbers: [DEMO_NUMBERS.callee] }),
  },
  injectSandboxInboundMessage: {
    customerWrites: example('The customer writes (opens the service window for the free-form sends’ examples)', {
      fromNumber: DEMO_NUMBERS.sandboxCustomer,
      profileName: 'Omar',
      type: 'text',
      text: 'Hi, where is my order?',
    }),
    sharesLocation: example('The customer shares a location', {
      fromNumber: DEMO_NUMBERS.sandboxCustomer,
      type: 'location',
      location: { latitude: 24.7136, longitude: 46.6753, name: 'Home' },
    }),
  },
  simulateSandboxWhatsAppUserCall: {
    caller: example('A WhatsApp user calls the demo number (after Set WhatsApp Calling enabled calling on it)', {
      fromNumber: DEMO_NUMBERS.sandboxCustomer,
    }),
  },
  injectSandboxQualityUpdate: {
    upgrade: example("Meta raises the business's messaging limit to 10,000", { event: 'UPGRADE', messagingLimit: 'TIER_10K' }),
  },
  injectSandboxUserPreference: {
    stop: example('The user stops marketing messages in WhatsApp', { fromNumber: DEMO_NUMBERS.optingOut, value: 'stop' }),
  },
  createSandboxTemplate: {
    deliveryWindow: example('An approved UTILITY template with two body placeholders', {
      name: 'delivery_window',
      language: 'en',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [
        {
          type: 'BODY',
          text: 'Hi {{1}}, your delivery arrives between {{2}}.',
          example: { body_text: [['Sara', '10:00 and 12:00']] },
        },
        { type: 'FOOTER', text: 'Reply STOP to opt out' },
      ],
    }),
  },
};
