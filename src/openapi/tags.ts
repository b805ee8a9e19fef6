/**
 * The document's tags, in the order Swagger UI shows them: the specification's groups as it lists
 * them, then the groups beyond it, operators' Admin last. A new tag needs its line here (the
 * OpenAPI conventions test fails on a tag without a description).
 */
export const TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'Account API', description: 'Service Login: exchange a client id and secret for a bearer token (OAuth 2.0 client credentials).' },
  { name: 'Channels API', description: "The workspace's channels: WhatsApp numbers and voice numbers, with their webhook addresses." },
  { name: 'Support API', description: 'Uploads of images, videos, documents and audio, served back under an unguessable URL.' },
  {
    name: 'Whatsapp API',
    description: 'Sending WhatsApp messages (free-form within the 24 h service window, templates always) and listing templates.',
  },
  { name: 'Contact', description: 'Contacts, their custom property values, notes, history and search.' },
  {
    name: 'Contact Properties',
    description: 'Workspace-defined custom contact properties (Text, Number, Select, Date) and their statistics.',
  },
  { name: 'Workspace API', description: "The workspace's users (people and AI agents)." },
  { name: 'Conversations API', description: 'Conversations per contact and channel: list, open, assign, close, and their timeline.' },
  { name: 'Tags API', description: 'Tags for conversations.' },
  { name: 'Outbound IVR', description: 'Outbound calls that play audio or speech, collect a digit, and report the outcome to a webhook.' },
  { name: 'Outbound IVR Flows', description: 'Saved multi-step call scripts (Play, Question, Hangup) for Create Outbound IVR.' },
  { name: 'Rate Limiting', description: "The workspace's rate limits and what remains of each." },
  { name: 'Webhooks', description: 'Outgoing webhooks (Standard Webhooks signatures): the delivery log and redelivery.' },
  {
    name: 'Send Policy',
    description:
      "The workspace's send policy: quiet hours in the contact's time zone, the frequency cap on marketing templates, the stop and start words " +
      "that set a contact's WhatsApp marketing consent; and cancelling a scheduled send or call.",
  },
  {
    name: 'Call Intelligence',
    description:
      "The workspace's speech-to-text and language-model providers (OpenAI-compatible) for recorded calls, and its evaluation criteria.",
  },
  { name: 'Campaigns', description: 'Template and call campaigns to an audience of contacts.' },
  {
    name: 'Admin',
    description: 'Operators only (`Authorization: Bearer <ADMIN_API_KEY>`): workspaces, service accounts, channels, sandbox tools.',
  },
];
