import type { Scenario } from './index.js';
import { seeded } from './contacts.js';

const TEMPLATE = {
  name: 'bench_campaign',
  language: 'en',
  category: 'MARKETING',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hi {{1}}, our sale starts today.' }],
};
/** The seeded Score is uniform over [0, 100): below 5 is 5% of the contacts. */
const SCORE_BELOW = 5;
const TARGET_SECONDS = 10;

/**
 * Start Campaign over the seeded million contacts with a Search Contacts audience matching 5%
 * (Score < 5): the snapshot is one INSERT … SELECT, timed end to end by the client (the answer
 * carries the counts). Scheduled for tomorrow, so nothing is sent; cancelled afterwards.
 */
export const audienceSnapshotScenario: Scenario = {
  name: 'campaigns: Start Campaign, audience snapshot of the seeded contacts at 5% match',
  async run(ctx) {
    const { count, properties } = await seeded(ctx);
    const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
      name: 'Bench campaigns',
      type: 2,
      phoneNumber: '+14155557300',
      whatsApp: { provider: 'sandbox' },
    });
    await ctx.admin('POST', `/admin/v1/channels/${channel.id}/templates`, TEMPLATE);
    const campaign = await ctx.call('POST', '/v1/campaigns', {
      name: 'Bench snapshot',
      channelId: channel.id,
      kind: 'WhatsAppTemplate',
      template: {
        templateName: TEMPLATE.name,
        language: TEMPLATE.language,
        parameters: [{ type: 'Body', values: [{ type: 'text', text: '{{contact.name}}' }] }],
      },
      audience: { search: { customPropertyFilters: [{ propertyDefinitionId: properties.score, operator: 7, value: SCORE_BELOW }] } },
      scheduledAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
    });
    const started = performance.now();
    const scheduled = await ctx.call('POST', `/v1/campaigns/${campaign.id}/start`, {});
    const seconds = (performance.now() - started) / 1000;
    await ctx.call('POST', `/v1/campaigns/${campaign.id}/cancel`, {});
    const total = scheduled.counts.total as number;
    const expected = (count * SCORE_BELOW) / 100;
    return {
      name: this.name,
      checks: [
        {
          what: `${total.toLocaleString('en-US')} recipients of ${count.toLocaleString('en-US')} in ${seconds.toFixed(2)} s ≤ ${TARGET_SECONDS} s`,
          ok: seconds <= TARGET_SECONDS,
        },
        { what: `about 5% matched (${((100 * total) / count).toFixed(2)}%)`, ok: Math.abs(total - expected) <= expected * 0.1 },
      ],
    };
  },
};
