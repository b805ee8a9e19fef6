/** What the demo seed made and shows once: enough to get a token and send through the sandbox channel. */
export interface DemoCredentials {
  workspaceId: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  channelId: string;
}

/**
 * The block printed after the server listens, the last thing a first start prints. Keep the label
 * lines as they are: people and scripts (an e2e test among them) read the values after the labels.
 */
export function demoCredentialsText(credentials: DemoCredentials, apiUrl: string): string {
  const lines = [
    'Demo workspace created. These credentials are shown only once:',
    `  client_id:      ${credentials.clientId}`,
    `  client_secret:  ${credentials.clientSecret}`,
    `  webhook secret: ${credentials.webhookSecret}`,
    `Demo channel id (the request examples' channelId): ${credentials.channelId}`,
    `Get a token:  curl -s -X POST ${apiUrl}/connect/token -d grant_type=client_credentials -d client_id=${credentials.clientId} -d client_secret=<client_secret>`,
    `Swagger UI:   ${apiUrl}/docs`,
  ];
  return `\n${lines.join('\n')}\n\n`;
}
