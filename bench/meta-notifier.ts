import { createHmac } from 'node:crypto';
import http from 'node:http';
import { content, envelope, inbound, statusEntry, type StatusState } from '../test/support/cloud-notifications.js';

/** Where Meta posts the channel's notifications, and the app secret it signs them with. */
export interface NotifierTarget {
  webhookUrl: string;
  appSecret: string;
  /** One message in this many gets an inbound text reply from its recipient. */
  replyEvery: number;
}

/** What the notifier posted and how the webhook edge answered (latency in ms, from the post). */
export interface NotifierStats {
  notifications: number;
  statuses: number;
  replies: number;
  non2xx: number;
  errors: number;
  latenciesMs: number[];
  /** Reply message ids, by the token of the message they answer. */
  replyIds: Array<[token: string, replyId: string]>;
}

/** How often due statuses are gathered into notifications: Meta batches statuses that fall close together. */
const TICK_MS = 50;
/** At most this many statuses in one notification. */
const MAX_STATUSES_PER_NOTIFICATION = 20;
const between = (low: number, high: number) => low + Math.random() * (high - low);

interface Due {
  at: number;
  post: 'status' | 'reply';
  wamid: string;
  to: string;
  token: string;
  state?: StatusState;
}

/**
 * Plays Meta's side of the loop for each message the fake took: signed `sent`, `delivered` and
 * `read` status notifications within a second (each notification batching the statuses due in the
 * same {@link TICK_MS}), and one message in {@link NotifierTarget.replyEvery} answered with an
 * inbound text. Runs in the fake's server thread, so its timing does not wait on the bench.
 */
export class MetaNotifier {
  private readonly due: Due[] = [];
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  private messages = 0;
  readonly stats = MetaNotifier.noStats();

  static noStats(): NotifierStats {
    return { notifications: 0, statuses: 0, replies: 0, non2xx: 0, errors: 0, latenciesMs: [], replyIds: [] };
  }

  private readonly timer: NodeJS.Timeout;

  constructor(private readonly target: NotifierTarget) {
    this.timer = setInterval(() => this.flush(), TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.agent.destroy();
  }

  /** The fake answered a send of `token` to `to` with `wamid`: schedule what Meta would post about it. */
  sent(wamid: string, to: string, token: string): void {
    const now = Date.now();
    const sentAt = now + between(100, 300);
    const deliveredAt = sentAt + between(100, 300);
    const readAt = deliveredAt + between(100, 350);
    this.due.push(
      { at: sentAt, post: 'status', wamid, to, token, state: 'sent' },
      { at: deliveredAt, post: 'status', wamid, to, token, state: 'delivered' },
      { at: readAt, post: 'status', wamid, to, token, state: 'read' },
    );
    if (++this.messages % this.target.replyEvery === 0) this.due.push({ at: readAt + between(50, 200), post: 'reply', wamid, to, token });
  }

  private flush(): void {
    const now = Date.now();
    const ready: Due[] = [];
    for (let i = this.due.length - 1; i >= 0; i--) if (this.due[i].at <= now) ready.push(...this.due.splice(i, 1));
    ready.sort((a, b) => a.at - b.at);
    const statuses = ready.filter((d) => d.post === 'status');
    for (let i = 0; i < statuses.length; i += MAX_STATUSES_PER_NOTIFICATION) {
      const batch = statuses.slice(i, i + MAX_STATUSES_PER_NOTIFICATION);
      this.stats.statuses += batch.length;
      this.post(envelope({ statuses: batch.map((d) => statusEntry(d.wamid, d.state!, statusOptions(d))) }));
    }
    for (const reply of ready.filter((d) => d.post === 'reply')) {
      const replyId = `wamid.reply.${reply.token}`;
      this.stats.replies++;
      this.stats.replyIds.push([reply.token, replyId]);
      this.post(inbound({ phone: reply.to, name: `Customer ${reply.to.slice(-4)}` }, replyId, content.text(`Thanks for ${reply.token}`)));
    }
  }

  /** POSTs one notification, signed with the app secret (`X-Hub-Signature-256`), as Meta does. */
  private post(notification: Record<string, unknown>): void {
    const postedAt = Date.now();
    const body = JSON.stringify(notification);
    const signature = `sha256=${createHmac('sha256', this.target.appSecret).update(body).digest('hex')}`;
    this.stats.notifications++;
    const req = http.request(this.target.webhookUrl, {
      method: 'POST',
      agent: this.agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-hub-signature-256': signature },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode !== 200) this.stats.non2xx++;
        // From the post, so one queued behind busy sockets counts its wait.
        this.stats.latenciesMs.push(Date.now() - postedAt);
      });
    });
    req.on('error', () => this.stats.errors++);
    req.end(body);
  }
}

/** `pricing` on every status and `conversation` on sent and delivered, as Meta sends them for a utility template under per-message pricing. */
function statusOptions(d: Due) {
  const conversation = { id: `conv-${d.to}`, origin: { type: 'utility' } };
  return {
    recipientId: d.to,
    pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' },
    ...(d.state === 'sent'
      ? { conversation: { ...conversation, expiration_timestamp: String(Math.floor(Date.now() / 1000) + 86_400) } }
      : d.state === 'delivered'
        ? { conversation }
        : {}),
  };
}
