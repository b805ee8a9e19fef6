import type { Scenario } from './index.js';
import { storeSyncedTemplate } from './whatsapp.js';
import { startWorker, type BenchContext } from '../context.js';

/** Recipients of each of the two campaigns (BENCH_BUSINESS_RECIPIENTS). */
const RECIPIENTS = Number(process.env.BENCH_BUSINESS_RECIPIENTS ?? 5000);
/** Each number's throughput tier (BENCH_BUSINESS_TIER): the two together send twice it. */
const TIER = Number(process.env.BENCH_BUSINESS_TIER ?? 250);
const BUSINESS_ID = 'bench-portfolio';
/** BENCH_BUSINESS_APART=1: the same load with each number in a business of its own (the control: no shared count). */
const APART = process.env.BENCH_BUSINESS_APART === '1';
const TEMPLATE = {
  name: 'bench_business',
  language: 'en',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hi {{1}}, your order is ready.' }],
};

/** A cloud-api number of the bench business, with the template and its tier. */
async function businessNumber(ctx: BenchContext, n: number): Promise<string> {
  const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
    name: `Bench business ${n}`,
    type: 2,
    phoneNumber: `+1415555760${n}`,
    businessId: APART ? `${BUSINESS_ID}-${n}` : BUSINESS_ID,
    whatsApp: {
      provider: 'cloud-api',
      phoneNumberId: `96${n}`,
      wabaId: '960',
      accessToken: 'bench-token',
      appSecret: 's',
      verifyToken: 'v',
    },
  });
  await storeSyncedTemplate(ctx, channel.id, TEMPLATE);
  // The business's limit (one number for both) high enough for both campaigns: every send still counts its recipient in the shared set.
  await ctx.admin('PUT', `/admin/v1/channels/${channel.id}/limits`, { throughputPerSecond: TIER, messagingLimit: 100000 });
  return channel.id;
}

/**
 * API.md §14's performance point: the governor's per-business count (one Redis set of unique
 * recipients for the portfolio, checked and added per send) keeps each number's campaign within 5%
 * of its tier when two numbers of one business send at once. Two cloud-api channels of one
 * `businessId`, each at tier BENCH_BUSINESS_TIER, each a template campaign to BENCH_BUSINESS_RECIPIENTS
 * contacts of its own, started together, one worker; the fake Cloud API stamps each recipient's
 * arrival (its name is the first parameter), so each number's delivered rate is measured apart.
 */
export const businessCampaignsScenario: Scenario = {
  name: `campaigns: two numbers of ${APART ? 'two businesses (control)' : 'one business'} at tier ${TIER}/s each, ${RECIPIENTS.toLocaleString('en-US')} recipients each, at once`,
  async run(ctx) {
    const channels = [await businessNumber(ctx, 1), await businessNumber(ctx, 2)];
    const audiences = channels.map((_, c) => Array.from({ length: RECIPIENTS }, (_, i) => `BenchBusiness${c} ${i}`));
    for (const [c, names] of audiences.entries()) {
      for (let from = 0; from < names.length; from += 5000) {
        const vCards = names
          .slice(from, from + 5000)
          .map((name, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${name}\r\nTEL:+1646${3_000_000 + c * 100_000 + from + i}\r\nEND:VCARD`);
        const imported = await ctx.call('POST', '/v1/contacts/import/vcards', { vCards });
        if (imported.createdCount !== vCards.length) throw new Error(`vCard import created ${imported.createdCount} of ${vCards.length}`);
      }
    }
    const worker = await startWorker(ctx);
    try {
      const campaigns = [];
      for (const [c, channelId] of channels.entries()) {
        campaigns.push(
          await ctx.call('POST', '/v1/campaigns', {
            name: `Bench business ${c}`,
            channelId,
            kind: 'WhatsAppTemplate',
            template: {
              templateName: TEMPLATE.name,
              language: TEMPLATE.language,
              parameters: [{ type: 'Body', values: [{ type: 'text', text: '{{contact.name}}' }] }],
            },
            audience: { search: { filter: `BenchBusiness${c}` } },
          }),
        );
      }
      await Promise.all(campaigns.map((campaign: { id: string }) => ctx.call('POST', `/v1/campaigns/${campaign.id}/start`, {})));
      const arrived = (names: string[]) => names.filter((name) => ctx.cloudApi.arrivals.has(name)).length;
      const deadline = Date.now() + Math.max(120_000, (RECIPIENTS / TIER) * 4000);
      while (audiences.some((names) => arrived(names) < names.length) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      await new Promise((resolve) => setTimeout(resolve, 1000)); // late doubles, if any
      const checks = audiences.map((names, c) => {
        const times = names.flatMap((name) => ctx.cloudApi.arrivals.get(name) ?? []).sort((a, b) => a - b);
        const seconds = times.length > 1 ? (times[times.length - 1] - times[0]) / 1000 : 0;
        const rate = seconds > 0 ? (times.length - 1) / seconds : 0;
        const lost = names.length - arrived(names);
        const doubled = names.filter((name) => (ctx.cloudApi.arrivals.get(name)?.length ?? 0) > 1).length;
        return {
          what: `number ${c + 1}: delivered ${rate.toFixed(1)}/s over ${seconds.toFixed(1)} s (tier ${TIER}/s, within 5%); lost ${lost}, sent twice ${doubled}`,
          ok: Math.abs(rate - TIER) <= TIER * 0.05 && lost === 0 && doubled === 0,
        };
      });
      const usage = await ctx.call('GET', `/v1/channels/${channels[0]}/limits`);
      checks.push({
        what: `the business of number 1 counted ${usage.uniqueRecipients24h} unique recipients (${APART ? RECIPIENTS : 2 * RECIPIENTS} expected)`,
        ok: usage.uniqueRecipients24h === (APART ? RECIPIENTS : 2 * RECIPIENTS),
      });
      checks.push({ what: `worker peak RSS ${worker.peakRssMb()} MB`, ok: true });
      return { name: this.name, checks };
    } finally {
      await worker.stop();
    }
  },
};
