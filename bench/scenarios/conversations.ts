import { settle, type BenchContext } from '../context.js';
import { seedConversations } from '../seed-conversations.js';
import { latencyScenario } from './latency.js';
import type { Scenario } from './index.js';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);

interface Seeded {
  channelIds: string[];
  userIds: string[];
  tagIds: string[];
  conversationIds: string[];
}

async function seeded(ctx: BenchContext): Promise<Seeded> {
  if (!ctx.shared.has('conversations')) await seedScenario.run(ctx);
  return ctx.shared.get('conversations') as Seeded;
}

const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

export const seedScenario: Scenario = {
  name: `conversations: seed ${CONVERSATIONS.toLocaleString('en-US')} over 3 channels, 10 events each`,
  async run(ctx) {
    const channelIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
        name: `Line ${i}`,
        type: 3,
        phoneNumber: `+1415555${String(7000 + i)}`,
        whatsApp: { provider: 'sandbox' },
        voice: { provider: 'sandbox' },
      });
      channelIds.push(channel.id);
    }
    const userIds: string[] = [];
    for (let i = 0; i < 10; i++) {
      userIds.push(
        (
          await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/users`, {
            email: `agent${i}@bench.example`,
            name: `Agent ${i}`,
            role: 2,
          })
        ).userId,
      );
    }
    const tagIds: string[] = [];
    for (let i = 0; i < 10; i++) tagIds.push((await ctx.call('POST', '/v1/tags/service-account', { name: `Tag ${i}` })).id);
    const result = await seedConversations(ctx.databaseUrl, ctx.workspaceId, channelIds, userIds, tagIds, CONVERSATIONS);
    await settle(ctx.databaseUrl);
    ctx.shared.set('conversations', { channelIds, userIds, tagIds, conversationIds: result.conversationIds });
    return {
      name: this.name,
      checks: [{ what: `${result.conversations} conversations, ${result.events} events in ${result.seconds.toFixed(1)} s`, ok: true }],
    };
  },
};

export const listConversationsScenario: Scenario = {
  name: 'GET List Conversations by assignee and tag',
  async run(ctx) {
    const { channelIds, userIds, tagIds } = await seeded(ctx);
    return latencyScenario(this.name, 50, {
      url: `${ctx.apiUrl}/`,
      headers: { authorization: `Bearer ${ctx.token}` },
      next: () => ({
        path: `/v2/conversations/service-account/channels/${pick(channelIds)}?AssigneeUserIds=${pick(userIds)}&TagIds=${pick(tagIds)}&MaxResultCount=20`,
      }),
    });
  },
};

export const timelineScenario: Scenario = {
  name: 'GET Conversation Timeline page',
  async run(ctx) {
    const { conversationIds } = await seeded(ctx);
    return latencyScenario(this.name, 20, {
      url: `${ctx.apiUrl}/`,
      headers: { authorization: `Bearer ${ctx.token}` },
      next: () => ({ path: `/v2/conversations/service-account/${pick(conversationIds)}/timeline?MaxResultCount=20` }),
    });
  },
};
