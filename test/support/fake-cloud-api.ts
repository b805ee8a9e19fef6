import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface CloudRequest {
  method: string;
  path: string;
  auth: string | undefined;
  body: any;
  receivedAt: number;
  /** What the fake answered. */
  answer?: CloudAnswer;
}

export interface CloudAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Cut the connection instead of answering. */
  drop?: boolean;
}

export interface TemplatePageData {
  data: unknown[];
}

/**
 * A stand-in for the WhatsApp Cloud API on 127.0.0.1. `POST /{phone-number-id}/messages` is
 * recorded and answered from a script (then like Meta, with a fresh `wamid`); `GET
 * /{waba-id}/message_templates` serves `templatePages` with cursor paging; {@link notify} sends a
 * webhook notification signed with the app secret, as Meta does.
 */
export class FakeCloudApi {
  readonly requests: CloudRequest[] = [];
  /** Answers for the next sends, in order. */
  readonly script: CloudAnswer[] = [];
  /** When set, a send with another bearer token is refused as Meta refuses an expired token (401, code 190). */
  acceptedTokens: string[] | undefined;
  /** Pages of `message_templates`: page i+1 is reached with the cursor of page i. */
  templatePages: TemplatePageData[] = [];
  private server!: Server;
  private sent = 0;
  url = '';

  static async start(): Promise<FakeCloudApi> {
    const fake = new FakeCloudApi();
    fake.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk) => (raw += chunk));
      req.on('end', () => {
        const receivedAt = Date.now();
        const path = req.url ?? '/';
        const request: CloudRequest = {
          method: req.method ?? 'GET',
          path,
          auth: req.headers.authorization,
          body: JSON.parse(raw || 'null'),
          receivedAt,
        };
        fake.requests.push(request);
        const answer = req.method === 'GET' && path.includes('/message_templates') ? fake.templatePage(path) : fake.sendAnswer(request);
        request.answer = answer;
        if (answer.drop) {
          req.socket.destroy();
          return;
        }
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    // Addressed by name, as the real graph.facebook.com is: the app's HTTP client must resolve names.
    fake.url = `http://localhost:${(fake.server.address() as { port: number }).port}/v21.0`;
    return fake;
  }

  /** The send requests (`POST …/messages`) received so far. */
  get sends(): CloudRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'));
  }

  /** Sends whose body's `to` is `to`. */
  sendsTo(to: string): CloudRequest[] {
    return this.sends.filter((r) => (r.body as { to?: string } | null)?.to === to);
  }

  /** A Graph API error answer, as Meta shapes it. */
  static error(status: number, code: number, message: string, headers?: Record<string, string>): CloudAnswer {
    return { status, headers, body: { error: { message, type: 'OAuthException', code, fbtrace_id: 'AbCdEf' } } };
  }

  /** POSTs `notification` to `url` with `X-Hub-Signature-256` made with `appSecret`; returns the HTTP status. */
  static async notify(url: string, appSecret: string, notification: unknown): Promise<number> {
    const body = JSON.stringify(notification);
    const signature = `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
    const response = await fetch(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    });
    return response.status;
  }

  /** A `messages` notification carrying one inbound text message. */
  static inboundText(from: string, messageId: string, text: string): unknown {
    return FakeCloudApi.notification({
      contacts: [{ profile: { name: 'Customer' }, wa_id: from }],
      messages: [{ from, id: messageId, timestamp: nowSeconds(), type: 'text', text: { body: text } }],
    });
  }

  /** A `messages` notification carrying one status of a sent message (with Graph API errors for `failed`). */
  static status(messageId: string, status: 'sent' | 'delivered' | 'read' | 'failed', recipient: string, errors?: unknown[]): unknown {
    return FakeCloudApi.notification({
      statuses: [{ id: messageId, status, timestamp: nowSeconds(), recipient_id: recipient, ...(errors ? { errors } : {}) }],
    });
  }

  private static notification(value: Record<string, unknown>): unknown {
    return {
      object: 'whatsapp_business_account',
      entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', ...value } }] }],
    };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private sendAnswer(request: CloudRequest): CloudAnswer {
    if (this.acceptedTokens && !this.acceptedTokens.includes((request.auth ?? '').replace(/^Bearer /, ''))) {
      return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired');
    }
    const scripted = this.script.shift();
    if (scripted) return scripted;
    const to = (request.body as { to?: string } | null)?.to;
    return {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: `wamid.fake${++this.sent}` }] },
    };
  }

  private templatePage(path: string): CloudAnswer {
    const url = new URL(path, this.url);
    const index = Number(url.searchParams.get('after') ?? 0);
    if (index + 1 >= this.templatePages.length) return { status: 200, body: this.templatePages[index] ?? { data: [] } };
    url.searchParams.set('after', String(index + 1));
    return { status: 200, body: { ...this.templatePages[index], paging: { next: url.toString() } } };
  }
}

const nowSeconds = () => String(Math.floor(Date.now() / 1000));
