import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { ChannelType } from '../../src/channels/channel.entity.js';
import { ChannelsService } from '../../src/channels/channels.service.js';
import { CampaignRecipientsRepository } from '../../src/campaigns/campaign-recipients.repository.js';
import { CampaignsModule } from '../../src/campaigns/campaigns.module.js';
import { CampaignsService } from '../../src/campaigns/campaigns.service.js';
import { TemplatesService } from '../../src/whatsapp/templates/templates.service.js';
import { WorkspacesModule } from '../../src/workspaces/workspaces.module.js';
import { WorkspacesService } from '../../src/workspaces/workspaces.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';

/** Above the snapshot size at which Start Campaign refreshes the planner's statistics (1,000). */
const AUDIENCE = 1200;

describe('Campaign recipients: the dispatcher’s claims (service tier)', () => {
  let ctx: ServiceTestContext;
  let principal: Principal;
  let campaignId: string;
  let recipients: CampaignRecipientsRepository;
  /** The audience's contact ids in claim order (contact id order). */
  let ordered: string[];

  const lastAnalyze = async () =>
    (
      await ctx.dataSource.query<Array<{ at: Date | null }>>(
        `SELECT last_analyze AS at FROM pg_stat_user_tables WHERE relname = 'campaign_recipients'`,
      )
    )[0].at;
  const claim = async (limit: number, after: string | null) =>
    (await recipients.claim(principal.workspaceId, campaignId, limit, after)).map((r) => r.contactId);

  before(async () => {
    ctx = await serviceTestModule([WorkspacesModule, CampaignsModule]);
    recipients = ctx.get(CampaignRecipientsRepository);
    const { workspace } = await ctx.get(WorkspacesService).create('Claims');
    principal = { serviceAccountId: randomUUID(), workspaceId: workspace.id, scopes: [] };
    const channel = await ctx.get(ChannelsService).create(workspace.id, {
      name: 'Claims',
      type: ChannelType.WhatsApp,
      phoneNumber: '+14155550121',
      whatsApp: { provider: 'sandbox' },
    } as never);
    await ctx.get(TemplatesService).createForOperator(channel.id, {
      name: 'claims_notice',
      language: 'en',
      category: 'UTILITY',
      status: 'APPROVED',
      components: [{ type: 'BODY', text: 'Your order has shipped.' }],
    } as never);
    // The audience is seeded in one statement: what is under test is the claims, not contact creation.
    await ctx.dataSource.query(
      `INSERT INTO contacts (id, workspace_id, name, phone_number)
       SELECT gen_random_uuid(), $1, 'Claims ' || g, '+1646' || (3000000 + g) FROM generate_series(1, ${AUDIENCE}) g`,
      [workspace.id],
    );
    const campaigns = ctx.get(CampaignsService);
    const campaign = await campaigns.create(principal, {
      name: 'Claims',
      channelId: channel.id,
      kind: 'WhatsAppTemplate',
      template: { templateName: 'claims_notice', language: 'en', parameters: [] },
      audience: { search: { filter: 'Claims' } },
      // Scheduled for tomorrow: nothing dispatches it while the test claims by hand.
      scheduledAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
    } as never);
    campaignId = campaign.id;
    const analyzedBefore = await lastAnalyze();
    const started = await campaigns.start(workspace.id, campaignId);
    assert.equal(started.status, 'Scheduled');
    const analyzedAfter = await lastAnalyze();
    assert.ok(
      analyzedAfter !== null && (analyzedBefore === null || analyzedAfter > analyzedBefore),
      `a snapshot of ${AUDIENCE} recipients has the table ANALYZEd (last_analyze ${String(analyzedBefore)} → ${String(analyzedAfter)})`,
    );
    ordered = (
      await ctx.dataSource.query<Array<{ id: string }>>(
        `SELECT contact_id AS id FROM campaign_recipients WHERE campaign_id = $1 ORDER BY contact_id`,
        [campaignId],
      )
    ).map((row) => row.id);
    assert.equal(ordered.length, AUDIENCE);
  });
  after(() => ctx.close());

  it('claims in contact order from after the cursor; recipients given back behind it come again when the dispatcher starts over', async () => {
    assert.deepEqual(await claim(3, null), ordered.slice(0, 3));
    assert.deepEqual(await claim(3, ordered[2]), ordered.slice(3, 6));
    // The first batch is given back (a pause, a failed send): its recipients are behind the cursor.
    await recipients.release(principal.workspaceId, campaignId, ordered.slice(0, 3));
    assert.deepEqual(await claim(AUDIENCE, ordered[5]), ordered.slice(6), 'past the cursor: every recipient after it, none behind');
    assert.deepEqual(await claim(10, ordered[AUDIENCE - 1]), [], 'nothing is left past the last recipient');
    assert.deepEqual(await claim(10, null), ordered.slice(0, 3), 'from the first: only those given back (the others are leased)');
    assert.deepEqual(await claim(10, null), [], 'every recipient is held');
  });
});
