import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ServiceAccountsService } from '../auth/service-accounts.service.js';
import { ChannelType } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { AppConfig } from '../config/app-config.js';
import { type DemoCredentials } from './demo-credentials.js';
import { DEMO_TEMPLATES } from '../whatsapp/templates/demo-templates.js';
import { DEMO_CHANNEL_ID } from './demo-channel-id.js';
import { TemplatesService } from '../whatsapp/templates/templates.service.js';
import { WorkspaceUserRole } from '../workspaces/workspace-user.entity.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';

export const DEMO_WORKSPACE_NAME = 'Demo workspace';
const SEED_LOCK = 727_001;

/**
 * With SEED_DEMO=true, the first start creates a demo workspace with a service account, a user and
 * a sandbox channel (WhatsApp and voice) with the templates the request examples use. Its credentials
 * are printed once, by the start, after the server listens (see {@link takeCreatedCredentials}).
 */
@Injectable()
export class DemoSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoSeed');
  private created: DemoCredentials | undefined;

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

  /** The credentials of the workspace this start created, once (undefined afterwards, and when none was created). */
  takeCreatedCredentials(): DemoCredentials | undefined {
    const created = this.created;
    this.created = undefined;
    return created;
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
    this.created = {
      workspaceId: workspace.id,
      clientId: account.clientId,
      clientSecret: account.clientSecret,
      webhookSecret,
      channelId: channel.id,
    };
    this.logger.log(`Seeded demo workspace ${workspace.id}`);
  }
}
