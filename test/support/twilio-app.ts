import type { DescribeWithAppOptions } from './describe-with-app.js';
import { FakeTwilio } from './fake-twilio.js';
import { freePort } from './free-port.js';
import { WebhookReceiver } from './webhook-receiver.js';

export const TWILIO_AUTH_TOKEN = 'twilio-auth-token-0123456789abcdef';
export const TWILIO_ACCOUNT_SID = 'AC0123456789abcdef0123456789abcdef';

type TwilioPeers = { fake: FakeTwilio; receiver: WebhookReceiver };

/**
 * The app of a suite that calls through a fake Twilio: the fake and a webhook receiver as peers,
 * and the app on a port chosen before it boots, since Twilio calls it back at PUBLIC_BASE_URL
 * (`app.publicBaseUrl` once the suite started). `env` adds to the environment.
 */
export function appWithFakeTwilio(env: Record<string, string> = {}): {
  app: { publicBaseUrl: string };
  options: DescribeWithAppOptions<TwilioPeers>;
} {
  const app = { publicBaseUrl: '' };
  return {
    app,
    options: {
      peers: { fake: () => FakeTwilio.start(TWILIO_AUTH_TOKEN), receiver: () => WebhookReceiver.start() },
      env: async ({ fake }) => {
        const port = await freePort();
        app.publicBaseUrl = `http://127.0.0.1:${port}`;
        return {
          PORT: String(port),
          PUBLIC_BASE_URL: app.publicBaseUrl,
          TWILIO_API_URL: fake.url,
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
          ...env,
        };
      },
      workspaces: 1,
    },
  };
}
