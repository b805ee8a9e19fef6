import assert from 'node:assert/strict';
import type { CloudRequest, FakeCloudApi } from './fake-cloud-api.js';
import { waitFor } from './fixtures.js';
import type { HttpClient } from './http-client.js';

/** One Send Template request of a {@link SendLoad}: its recipient, answer and timing. */
export interface SendOutcome {
  to: string;
  status: number;
  code?: string;
  retryAfter?: string;
  ms: number;
  at: number;
}

/** The number a Cloud API send went to, in the load's spelling (digits only). */
const recipientOf = (request: CloudRequest) => String(request.body?.to).replace(/^\+/, '');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Send Template requests from a few clients, each to a recipient of its own, while a test restarts
 * a dependency: the outcomes tell what was accepted, refused and how fast, and {@link assertAcceptedSentOnce}
 * checks them against what the fake Cloud API received.
 */
export class SendLoad {
  readonly outcomes: SendOutcome[] = [];
  private seq = 0;
  private running = false;
  private clients: Array<Promise<void>> = [];

  constructor(
    private readonly api: HttpClient,
    private readonly channelId: string,
    private readonly template: { name: string; language: string },
    /** The recipients' numbers are this prefix and a 4-digit sequence. */
    private readonly numberPrefix: string,
  ) {}

  async send(): Promise<SendOutcome> {
    const to = `${this.numberPrefix}${String(++this.seq).padStart(4, '0')}`;
    const started = Date.now();
    const res = await this.api.post('/v1/whatsapp/service-account/sendTemplate', {
      ChannelId: this.channelId,
      TemplateName: this.template.name,
      Language: this.template.language,
      ToNumber: to,
    });
    return {
      to,
      status: res.status,
      code: res.body?.error?.code,
      retryAfter: res.headers.get('retry-after') ?? undefined,
      ms: Date.now() - started,
      at: started,
    };
  }

  start(clients: number): void {
    this.running = true;
    this.clients = Array.from({ length: clients }, async () => {
      while (this.running) {
        this.outcomes.push(await this.send());
        await sleep(20);
      }
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.clients);
  }

  accepted(): SendOutcome[] {
    return this.outcomes.filter((o) => o.status === 200);
  }

  acceptedSince(at: number): number {
    return this.outcomes.filter((o) => o.at > at && o.status === 200).length;
  }
}

/** Nothing accepted is lost, nothing is sent twice, and what was refused never left. */
export async function assertAcceptedSentOnce(load: SendLoad, fake: FakeCloudApi): Promise<void> {
  const accepted = load.accepted();
  await waitFor(
    async () => {
      const sentTo = new Set(fake.sends.map(recipientOf));
      return accepted.every((o) => sentTo.has(o.to));
    },
    90_000,
    'every accepted send at the fake Cloud API',
  ).catch((err: Error) => {
    const sentTo = new Set(fake.sends.map(recipientOf));
    throw new Error(`${err.message}: missing ${JSON.stringify(accepted.filter((o) => !sentTo.has(o.to)).map((o) => o.to))}`);
  });
  const sendsTo = new Map<string, number>();
  for (const to of fake.sends.map(recipientOf)) sendsTo.set(to, (sendsTo.get(to) ?? 0) + 1);
  assert.deepEqual(
    [...sendsTo].filter(([, count]) => count > 1),
    [],
    'no recipient received the message twice',
  );
  const refusedTo = new Set(load.outcomes.filter((o) => o.status !== 200).map((o) => o.to));
  assert.deepEqual(
    [...sendsTo.keys()].filter((to) => refusedTo.has(to)),
    [],
    'a refused request sent nothing',
  );
}
