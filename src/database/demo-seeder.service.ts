import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ServiceAccountsService } from '../auth/service-accounts.service.js';
import { ChannelType } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { AppConfig } from '../config/app-config.js';
import { DEMO_TEMPLATES } from '../whatsapp/demo-templates.js';
import { DEMO_CHANNEL_ID } from './demo-channel-id.js';
import { TemplatesService } from '../whatsapp/templates.service.js';
import { WorkspaceUserRole } from '../workspaces/workspace-user.entity.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';

export const DEMO_WORKSPACE_NAME = 'Demo workspace';
const SEED_LOCK = 727_001;

/**
 * With SEED_DEMO=true, the first start creates a demo workspace with a service account, a user and
 * a sandbox channel (WhatsApp and voice) with the templates the request examples use, and prints the
 * client credentials once.
 */
@Injectable()
export class DemoSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoSeed');

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly workspaces: WorkspacesService,
    private readonly serviceAccounts: ServiceAccountsService,
    private readonly channels: ChannelsService,
    private readonly templates: TemplatesService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.seedDemo || !this.config.runsApi) return;
    // An advisory lock keeps two replicas starting together from seeding twice. The DataSource is
    // here for that lock alone (held for the transaction); the rows are written by the services.
    await this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK]);
      if (await this.workspaces.existsNamed(DEMO_WORKSPACE_NAME)) return;
      await this.seed();
    });
  }

  private async seed(): Promise<void> {
    const { workspace, webhookSecret } = await this.workspaces.create(DEMO_WORKSPACE_NAME);
    const account = await this.serviceAccounts.create(workspace.id, 'Demo integration');
    await this.workspaces.addUser(workspace.id, { email: 'owner@demo.example', name: 'Demo Owner', role: WorkspaceUserRole.Owner });
    const channel = await this.channels.create(
      workspace.id,
      {
        name: 'Demo sandbox',
        type: ChannelType.PhoneNumberAndWhatsapp,
        phoneNumber: '+14155550100',
        whatsApp: { provider: 'sandbox' },
        voice: { provider: 'sandbox', sandbox: { answer: true, pressDigits: ['1'], ringMs: 1000, talkMs: 2000 } },
      },
      DEMO_CHANNEL_ID,
    );
    for (const template of DEMO_TEMPLATES) await this.templates.createForOperator(channel.id, template);
    const lines = [
      'Demo workspace created. These credentials are shown only once:',
      `  client_id:      ${account.clientId}`,
      `  client_secret:  ${account.clientSecret}`,
      `  webhook secret: ${webhookSecret}`,
      `Demo channel id (the request examples' channelId): ${channel.id}`,
      `Get a token:  curl -s -X POST ${this.config.http.publicBaseUrl}/connect/token -d grant_type=client_credentials -d client_id=${account.clientId} -d client_secret=<client_secret>`,
      `Swagger UI:   ${this.config.http.publicBaseUrl}/docs`,
    ];
    // Printed to stdout directly: log redaction would (rightly) hide the secret.
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
    this.logger.log(`Seeded demo workspace ${workspace.id}`);
  }
}
