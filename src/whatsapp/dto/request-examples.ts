import { DEMO_CHANNEL_ID } from '../../database/demo-channel-id.js';
import { DEMO_NUMBERS } from '../../openapi/demo-numbers.js';

/** The demo channel, and the customer whose sandbox inbound message (Inject Sandbox Inbound Message) opens the service window. */
const channelId = DEMO_CHANNEL_ID;
const toNumber = DEMO_NUMBERS.sandboxCustomer;
/** An event id of the conversation (Get Conversation Timeline) and an upload's id (Upload Image, Video or PDF) are yours to paste. */
const messageId = '01970f3e-9b5c-7d2e-8f30-4b5c6d7e8f90';
const mediaId = '01970f3e-ac6d-7e3f-9041-5c6d7e8f9a01';

/**
 * Request bodies for Swagger UI's "Try it out" on the demo channel, the first of each operation
 * (Swagger UI's default) runnable as it stands once the customer has written; the others need the
 * caller's event or upload id (a media send takes a URL or an uploaded file's id, never both).
 * Keys are sorted in the document, so the default's key sorts first.
 */
export const REQUEST_EXAMPLES: Record<string, Record<string, { summary: string; value: Record<string, unknown> }>> = {
  sendText: {
    reply: {
      summary: 'A reply in the open service window',
      value: { channelId, toNumber, text: 'Hello from the API: your order has shipped.' },
    },
    withPreview: {
      summary: 'With a link preview',
      value: { channelId, toNumber, text: 'Track it here: https://shop.example.com/orders/A-1042', previewUrl: true },
    },
  },
  sendInteractiveButtons: {
    confirm: {
      summary: 'Two reply buttons',
      value: {
        channelId,
        toNumber,
        header: 'Order A-1042',
        body: 'Shall we deliver tomorrow between 10:00 and 12:00?',
        footer: 'Reply any time',
        buttons: [
          { id: 'deliver-tomorrow', title: 'Yes, tomorrow' },
          { id: 'pick-another-day', title: 'Another day' },
        ],
      },
    },
  },
  sendImage: {
    byUrl: {
      summary: 'By URL',
      value: { channelId, toNumber, imageUrl: 'https://www.w3.org/Icons/w3c_home.png', caption: 'Your receipt' },
    },
    uploaded: { summary: 'By uploaded file (mediaId)', value: { channelId, toNumber, mediaId, caption: 'Your receipt' } },
  },
  sendAudio: {
    byUrl: { summary: 'By URL', value: { channelId, toNumber, audioUrl: 'https://cdn.example.com/greeting.ogg' } },
    uploaded: { summary: 'By uploaded file (mediaId)', value: { channelId, toNumber, mediaId } },
  },
  sendVideo: {
    byUrl: { summary: 'By URL', value: { channelId, toNumber, videoUrl: 'https://cdn.example.com/welcome.mp4', caption: 'Welcome' } },
    uploaded: { summary: 'By uploaded file (mediaId)', value: { channelId, toNumber, mediaId, caption: 'Welcome' } },
  },
  sendFile: {
    byUrl: {
      summary: 'By URL',
      value: {
        channelId,
        toNumber,
        fileUrl: 'https://cdn.example.com/invoice-a17.pdf',
        fileName: 'invoice-a17.pdf',
        caption: 'Invoice A-17',
      },
    },
    uploaded: { summary: 'By uploaded file (mediaId)', value: { channelId, toNumber, mediaId, caption: 'Invoice A-17' } },
  },
  sendLocation: {
    store: {
      summary: 'A store',
      value: { channelId, toNumber, latitude: 24.7136, longitude: 46.6753, name: 'Riyadh store', address: 'King Fahd Rd, Riyadh' },
    },
  },
  sendContacts: {
    card: {
      summary: 'One contact card',
      value: {
        channelId,
        toNumber,
        contacts: [
          {
            name: { formattedName: 'Sara Ahmed', firstName: 'Sara', lastName: 'Ahmed' },
            phones: [{ phone: '+966550100030', type: 'CELL' }],
            emails: [{ email: 'sara@example.com', type: 'WORK' }],
            org: { company: 'Example Co', title: 'Support lead' },
          },
        ],
      },
    },
  },
  sendReaction: {
    react: { summary: 'React', value: { channelId, toNumber, messageId, emoji: '👍' } },
    remove: { summary: 'Remove the reaction', value: { channelId, toNumber, messageId, emoji: '' } },
  },
  sendList: {
    shipping: {
      summary: 'Shipping options',
      value: {
        channelId,
        toNumber,
        header: 'Shipping',
        body: 'Which shipping option do you prefer?',
        footer: 'Prices include VAT',
        buttonText: 'Choose',
        sections: [
          {
            title: 'Fast',
            rows: [
              { id: 'express', title: 'Express', description: 'Next day' },
              { id: 'priority', title: 'Priority', description: '2 days' },
            ],
          },
          { title: 'Economy', rows: [{ id: 'standard', title: 'Standard', description: '5 to 7 days' }] },
        ],
      },
    },
  },
  sendCtaUrl: {
    track: {
      summary: 'Track an order',
      value: {
        channelId,
        toNumber,
        header: 'Order A-17',
        body: 'Your order is on its way.',
        footer: 'Thanks for shopping with us',
        displayText: 'Track order',
        url: 'https://shop.example.com/track/A-17',
      },
    },
  },
  markAsRead: {
    read: { summary: 'Mark read', value: { channelId, messageId } },
    typing: { summary: 'Mark read and show typing', value: { channelId, messageId, typingIndicator: true } },
  },
};
