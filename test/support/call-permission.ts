import type { HttpClient } from './http-client.js';
import { FakeCloudApi } from './fake-cloud-api.js';
import { waitFor } from './fixtures.js';

const isUserId = (user: string) => /^[A-Z]{2}\./.test(user);

/** Meta's `messages` webhook with a user's answer to a call permission request (`call_permission_reply`); `user` is a number or a BSUID. */
export function callPermissionReply(phoneNumberId: string, user: string, response: 'accept' | 'reject', permanent: boolean, id: string) {
  const seconds = Math.floor(Date.now() / 1000);
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '14155550000', phone_number_id: phoneNumberId },
              // A user who shares no number (2026's usernames) is named by their BSUID alone.
              contacts: [{ profile: { name: 'Customer' }, ...(isUserId(user) ? { user_id: user } : { wa_id: user }) }],
              messages: [
                {
                  ...(isUserId(user) ? { from_user_id: user } : { from: user }),
                  id,
                  timestamp: String(seconds),
                  type: 'interactive',
                  interactive: {
                    type: 'call_permission_reply',
                    call_permission_reply: {
                      response,
                      is_permanent: permanent,
                      ...(response === 'accept' && !permanent && { expiration_timestamp: seconds + 7 * 86_400 }),
                      response_source: 'user_action',
                    },
                  },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/** The user grants the channel's number permission to call them for good; resolves once the service has it. */
export async function grantCallPermission(
  api: HttpClient,
  channel: { id: string; webhookUrl: string; appSecret: string; phoneNumberId: string },
  user: string,
): Promise<void> {
  const notification = callPermissionReply(channel.phoneNumberId, user, 'accept', true, `wamid.permission.${user}.${Date.now()}`);
  const status = await FakeCloudApi.notify(channel.webhookUrl, channel.appSecret, notification);
  if (status !== 200) throw new Error(`The app answered the permission reply with ${status}`);
  await waitFor(
    async () => {
      const created = await api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: `+${user}` });
      const consent = await api.get(`/v1/contacts/${created.body.conversation.contactId}/consent`);
      return consent.body.whatsAppCalls?.status === 'Granted';
    },
    15_000,
    `the call permission of ${user}`,
  );
}
