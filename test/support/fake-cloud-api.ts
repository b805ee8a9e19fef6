import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { FakeMetaCalls } from './fake-meta-calls.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

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

/** A file the fake Graph API holds for an inbound message, served as Meta serves media. */
export interface FakeMedia {
  bytes: Buffer;
  mimeType: string;
  /** What `GET /{media-id}` announces as `sha256` (default: the bytes' real hex digest). */
  sha256?: string;
  /** The next this many `GET /{media-id}` answer a Graph 500. */
  metadataFailures?: number;
  /** The next this many downloads of the file answer 500. */
  downloadFailures?: number;
  /** Bytes are sent in chunks of this size with `chunkDelayMs` between them (a slow download). */
  chunkBytes?: number;
  chunkDelayMs?: number;
}

/** A `POST /{phone-number-id}/media` upload as the fake read it from its multipart body. */
export interface CloudUpload {
  path: string;
  auth: string | undefined;
  /** The request's Content-Length header (the upload is sent with one, not chunked). */
  contentLength: string | undefined;
  /** The text parts (`messaging_product`, `type`). */
  fields: Record<string, string>;
  /** The `file` part. */
  file: { name: string; type: string; size: number; sha256: string; head: Buffer } | null;
  /** The media id answered, when the upload was taken. */
  id?: string;
}

/** The template fields the service asks Meta for (`fields=`), listed or read alone. */
export const TEMPLATE_FIELDS = 'id,name,language,status,category,components,quality_score';

/** A template as the fake WhatsApp Business Account holds it. */
export interface FakeTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
  /** Meta's quality score once it rated the template (`quality_score.score`). */
  qualityScore?: string;
  /** The create request's body. */
  body: any;
}

export interface TemplatePageData {
  data: unknown[];
}

/**
 * A stand-in for the WhatsApp Cloud API on 127.0.0.1. `POST /{phone-number-id}/messages` is
 * recorded and answered from a script (then like Meta, with a fresh `wamid`, or `{ success: true }`
 * for Mark As Read); `POST /{phone-number-id}/media` takes a multipart upload and answers `{ id }`; `GET
 * /{waba-id}/message_templates` serves `templatePages` with cursor paging; {@link notify} sends a
 * webhook notification signed with the app secret, as Meta does.
 */
export class FakeCloudApi {
  readonly requests: CloudRequest[] = [];
  /** Answers for the next sends, in order. */
  readonly script: CloudAnswer[] = [];
  /** When set, a send with another bearer token is refused as Meta refuses an expired token (401, code 190). */
  acceptedTokens: string[] | undefined;
  /** Inbound media by media id: `GET /{media-id}` describes it, its `url` serves the bytes, both behind the bearer token. */
  readonly media = new Map<string, FakeMedia>();
  /** Templates created through `POST /{waba-id}/message_templates`, as Meta holds them (status PENDING until a webhook says otherwise). */
  readonly createdTemplates: FakeTemplate[] = [];
  /**
   * Meta's template library as this fake holds it (`library_template_name` → its category and
   * content): a template created from it is approved at once (its content was reviewed already)
   * and carries the library's components, which `GET /{template-id}` answers.
   */
  static readonly templateLibrary: Record<string, { category: string; components: unknown[] }> = {
    payment_reminder_1: {
      category: 'UTILITY',
      components: [
        { type: 'BODY', text: 'Hi {{1}}, this is a reminder that your payment of {{2}} is due on {{3}}.' },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Pay now', url: 'https://www.example.com/pay' }] },
      ],
    },
  };
  private templateIds = 0;
  /** Pages of `message_templates`: page i+1 is reached with the cursor of page i. */
  templatePages: TemplatePageData[] = [];
  /** How many of the next requests with a cursor are refused as outdated (v24.0+). */
  staleCursors = 0;
  /** Media uploads received (`POST /{phone-number-id}/media`), in order. */
  readonly uploads: CloudUpload[] = [];
  /** Answers for the next uploads, in order. */
  readonly uploadScript: CloudAnswer[] = [];
  /** Meta's Calling API (`POST /{phone-number-id}/calls`), once a test sets it up with where the webhooks go. */
  calls: FakeMetaCalls | undefined;
  /** Answers for the next `POST /{phone-number-id}/settings`, in order; then `{ success: true }` as Meta answers. */
  readonly settingsScript: CloudAnswer[] = [];
  /** The calling settings each number holds, as last set through `POST /{phone-number-id}/settings`. */
  readonly callingSettings = new Map<string, unknown>();
  /** How long a send (`POST …/messages`) is held after it was received and before it is answered, as Meta takes its time. */
  sendLatencyMs = 0;
  private server!: Server;
  private sent = 0;
  private uploaded = 0;
  url = '';

  static async start(options: { acceptedTokens?: string[]; templatePages?: TemplatePageData[] } = {}): Promise<FakeCloudApi> {
    const fake = new FakeCloudApi();
    fake.acceptedTokens = options.acceptedTokens;
    fake.templatePages = options.templatePages ?? [];
    fake.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void (async () => {
          const raw = Buffer.concat(chunks);
          const receivedAt = Date.now();
          const path = req.url ?? '/';
          if (req.method === 'GET' && path.startsWith('/whatsapp_business/attachments/')) {
            fake.requests.push({ method: 'GET', path, auth: req.headers.authorization, body: null, receivedAt });
            fake.serveMediaBytes(req, res);
            return;
          }
          const multipart = (req.headers['content-type'] ?? '').startsWith('multipart/form-data');
          const request: CloudRequest = {
            method: req.method ?? 'GET',
            path,
            auth: req.headers.authorization,
            body: multipart ? null : JSON.parse(raw.toString('utf8') || 'null'),
            receivedAt,
          };
          fake.requests.push(request);
          const answer =
            req.method === 'POST' && path.includes('/message_templates')
              ? fake.templateCreated(request)
              : req.method === 'DELETE' && path.includes('/message_templates')
                ? fake.templateDeleted(request)
                : req.method === 'GET' && path.includes('/message_templates')
                  ? fake.templatePage(path)
                  : req.method === 'GET' && fake.heldTemplate(path)
                    ? fake.templateRead(request, fake.heldTemplate(path)!)
                    : req.method === 'GET'
                      ? fake.mediaInfo(req, path)
                      : req.method === 'POST' && path.endsWith('/calls') && fake.calls
                        ? await fake.calls.answer(request)
                        : req.method === 'POST' && path.endsWith('/settings')
                          ? fake.settingsAnswer(request)
                          : req.method === 'POST' && path.endsWith('/media')
                            ? await fake.uploadAnswer(request, raw, req.headers['content-type'] ?? '', req.headers['content-length'])
                            : fake.sendAnswer(request);
          if (fake.sendLatencyMs > 0 && req.method === 'POST' && path.endsWith('/messages'))
            await new Promise((resolve) => setTimeout(resolve, fake.sendLatencyMs));
          request.answer = answer;
          if (answer.drop) {
            req.socket.destroy();
            return;
          }
          res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
          res.end(JSON.stringify(answer.body));
        })();
      });
    });
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    // Addressed by name, as the real graph.facebook.com is: the app's HTTP client must resolve names.
    fake.url = `http://localhost:${(fake.server.address() as { port: number }).port}/v25.0`;
    return fake;
  }

  /** Holds `bytes` as media `id` (see {@link FakeMedia}); returns the hex SHA-256 of the bytes. */
  addMedia(id: string, bytes: Buffer, mimeType: string, options: Omit<FakeMedia, 'bytes' | 'mimeType'> = {}): string {
    this.media.set(id, { bytes, mimeType, ...options });
    return createHash('sha256').update(bytes).digest('hex');
  }

  /** Requests for a media id's description, and downloads of its bytes. */
  mediaRequests(id: string): { info: CloudRequest[]; downloads: CloudRequest[] } {
    return {
      info: this.requests.filter((r) => r.method === 'GET' && r.path === `/v25.0/${id}`),
      downloads: this.requests.filter((r) => r.path.startsWith(`/whatsapp_business/attachments/?mid=${id}&`)),
    };
  }

  /** The send requests (`POST …/messages`) received so far. */
  get sends(): CloudRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages'));
  }

  /** Mark As Read requests (`POST …/messages` with `status: "read"`). */
  get reads(): CloudRequest[] {
    return this.sends.filter((r) => (r.body as { status?: string } | null)?.status === 'read');
  }

  /** Sends whose body's `to` is `to`. */
  sendsTo(to: string): CloudRequest[] {
    return this.sends.filter((r) => (r.body as { to?: string } | null)?.to === to);
  }

  /** Sends whose body's `recipient` (a BSUID) is `recipient`. */
  sendsToRecipient(recipient: string): CloudRequest[] {
    return this.sends.filter((r) => (r.body as { recipient?: string } | null)?.recipient === recipient);
  }

  /** A Graph API error answer, as Meta shapes it. */
  static error(status: number, code: number, message: string, headers?: Record<string, string>): CloudAnswer {
    return { status, headers, body: { error: { message, type: 'OAuthException', code, fbtrace_id: 'AbCdEf' } } };
  }

  /**
   * Meta's refusal of a marketing message to a user who stopped marketing messages from the
   * business (error 131050), shaped as the Graph API answers a send.
   */
  static marketingOptedOut(): CloudAnswer {
    const details =
      'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.';
    return FakeCloudApi.whatsAppError(131050, details, details);
  }

  /** Meta's throughput refusal (error 130429, "Rate limit hit"): the number sent more messages a second than its tier. */
  static throughputReached(): CloudAnswer {
    return FakeCloudApi.whatsAppError(130429, 'Rate limit hit', 'Cloud API message throughput has been reached.');
  }

  /** Meta's pair-rate refusal (error 131056): too many messages to one recipient in a short time. */
  static pairRateReached(): CloudAnswer {
    return FakeCloudApi.whatsAppError(
      131056,
      '(Business Account, Consumer Account) pair rate limit hit',
      'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
    );
  }

  /** A WhatsApp error as the Graph API answers a send (HTTP 400): `(#code) title` as the message, the explanation in `error_data.details`. */
  private static whatsAppError(code: number, title: string, details: string): CloudAnswer {
    return {
      status: 400,
      body: {
        error: {
          message: `(#${code}) ${title}`,
          type: 'OAuthException',
          code,
          error_data: { messaging_product: 'whatsapp', details },
          fbtrace_id: `AbCdEf${code}`,
        },
      },
    };
  }

  /**
   * `POST /{waba-id}/message_templates`: Meta answers `{ id, status: "PENDING", category }`; a name
   * already used in the language is error 100 subcode 2388024, a body without components or a
   * library template name is error 100.
   */
  private templateCreated(request: CloudRequest): CloudAnswer {
    if (this.refusesToken(request)) return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired');
    const scripted = this.script.shift();
    if (scripted) return scripted;
    const body = (request.body ?? {}) as {
      name?: string;
      language?: string;
      category?: string;
      components?: unknown[];
      library_template_name?: string;
    };
    if (!body.name || !body.language || !body.category) return FakeCloudApi.error(400, 100, '(#100) Invalid parameter');
    if (!Array.isArray(body.components) && !body.library_template_name)
      return FakeCloudApi.error(400, 100, '(#100) Param components is required');
    if (this.createdTemplates.some((t) => t.name === body.name && t.language === body.language)) {
      const answer = FakeCloudApi.error(400, 100, 'Invalid parameter');
      Object.assign((answer.body as { error: Record<string, unknown> }).error, {
        error_subcode: 2388024,
        error_user_title: 'Message template already exists',
        error_user_msg: `There is already ${body.language} content for this template. Choose another name or language.`,
      });
      return answer;
    }
    const id = String(1_689_556_908_000_000 + ++this.templateIds);
    if (body.library_template_name) {
      const library = FakeCloudApi.templateLibrary[body.library_template_name];
      if (!library)
        return FakeCloudApi.error(400, 100, `(#100) Invalid parameter: no library template named ${body.library_template_name}`);
      const { category, components } = library;
      this.createdTemplates.push({ id, name: body.name, language: body.language, category, status: 'APPROVED', components, body });
      return { status: 200, body: { id, status: 'APPROVED', category } };
    }
    const components = body.components ?? [];
    this.createdTemplates.push({
      id,
      name: body.name,
      language: body.language,
      category: body.category,
      status: 'PENDING',
      components,
      body,
    });
    return { status: 200, body: { id, status: 'PENDING', category: body.category } };
  }

  /** The held template a `GET /{version}/{template-id}` names, if any. */
  private heldTemplate(path: string): FakeTemplate | undefined {
    const id = new URL(path, 'http://fake').pathname.split('/').filter(Boolean).at(-1);
    return this.createdTemplates.find((t) => t.id === id);
  }

  /** `GET /{template-id}?fields=…`: the template as Meta holds it. */
  private templateRead(request: CloudRequest, template: FakeTemplate): CloudAnswer {
    if (this.refusesToken(request)) return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired');
    return { status: 200, body: FakeCloudApi.templateAsHeld(template, new URL(request.path, 'http://fake').searchParams.get('fields')) };
  }

  /** A held template as Meta reads it out: only the `fields` asked for, when given. */
  private static templateAsHeld(template: FakeTemplate, fields: string | null): Record<string, unknown> {
    const whole: Record<string, unknown> = {
      id: template.id,
      name: template.name,
      language: template.language,
      status: template.status,
      category: template.category,
      components: template.components,
      ...(template.qualityScore ? { quality_score: { score: template.qualityScore, date: Number(nowSeconds()) } } : {}),
    };
    if (!fields) return whole;
    return Object.fromEntries(
      fields
        .split(',')
        .filter((f) => f in whole)
        .map((f) => [f, whole[f]]),
    );
  }

  /** `DELETE /{waba-id}/message_templates?name=…`: every language of the name; `{ success: true }`. */
  private templateDeleted(request: CloudRequest): CloudAnswer {
    if (this.refusesToken(request)) return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired');
    const name = new URL(request.path, 'http://fake').searchParams.get('name');
    if (!name) return FakeCloudApi.error(400, 100, '(#100) The parameter name is required.');
    for (let i = this.createdTemplates.length - 1; i >= 0; i--)
      if (this.createdTemplates[i].name === name) this.createdTemplates.splice(i, 1);
    return { status: 200, body: { success: true } };
  }

  /** A `message_template_status_update` notification (APPROVED, REJECTED, PAUSED, DISABLED, …) as Meta sends it. */
  static templateStatusUpdate(
    template: { id: string; name: string; language: string },
    event: string,
    options: { reason?: string; category?: string; otherInfo?: { title: string; description: string } } = {},
  ): unknown {
    return FakeCloudApi.accountChange('message_template_status_update', {
      event,
      message_template_id: Number(template.id),
      message_template_name: template.name,
      message_template_language: template.language,
      reason: options.reason ?? 'NONE',
      ...(options.category ? { message_template_category: options.category } : {}),
      ...(options.otherInfo ? { other_info: options.otherInfo } : {}),
    });
  }

  /** A `template_category_update` notification: Meta moved the template to another category. */
  static templateCategoryUpdate(
    template: { id: string; name: string; language: string },
    previousCategory: string,
    newCategory: string,
  ): unknown {
    return FakeCloudApi.accountChange('template_category_update', {
      message_template_id: Number(template.id),
      message_template_name: template.name,
      message_template_language: template.language,
      previous_category: previousCategory,
      new_category: newCategory,
    });
  }

  /** A `message_template_quality_update` notification: the template's quality score moved. */
  static templateQualityUpdate(template: { id: string; name: string; language: string }, previousScore: string, newScore: string): unknown {
    return FakeCloudApi.accountChange('message_template_quality_update', {
      previous_quality_score: previousScore,
      new_quality_score: newScore,
      message_template_id: Number(template.id),
      message_template_name: template.name,
      message_template_language: template.language,
    });
  }

  /** An account-level notification (its `value` has no `messaging_product`), under `field`. */
  private static accountChange(field: string, value: Record<string, unknown>): unknown {
    return { object: 'whatsapp_business_account', entry: [{ id: 'WABA', time: Number(nowSeconds()), changes: [{ value, field }] }] };
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

  private refusesToken(request: CloudRequest): boolean {
    if (!request.auth?.startsWith('Bearer ')) return true;
    return this.acceptedTokens !== undefined && !this.acceptedTokens.includes(request.auth.replace(/^Bearer /, ''));
  }

  private settingsAnswer(request: CloudRequest): CloudAnswer {
    if (this.tokenRefused(request.auth)) return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired.');
    const scripted = this.settingsScript.shift();
    if (scripted) return scripted;
    const phoneNumberId = request.path.split('/').at(-2) ?? '';
    this.callingSettings.set(phoneNumberId, (request.body as { calling?: unknown } | null)?.calling);
    return { status: 200, body: { success: true } };
  }

  private sendAnswer(request: CloudRequest): CloudAnswer {
    if (this.refusesToken(request)) return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired');
    const scripted = this.script.shift();
    if (scripted) return scripted;
    if ((request.body as { status?: string } | null)?.status === 'read') {
      const messageId = (request.body as { message_id?: unknown }).message_id;
      if (typeof messageId !== 'string' || !messageId) return FakeCloudApi.error(400, 100, '(#100) The parameter message_id is required.');
      return { status: 200, body: { success: true } };
    }
    const { to, recipient } = (request.body ?? {}) as { to?: string; recipient?: string };
    // `to` wins over `recipient`; a send to a BSUID is answered with its user_id instead of a wa_id.
    const contact = to ? { input: to, wa_id: to } : { input: recipient, user_id: recipient };
    return {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [contact], messages: [{ id: `wamid.fake${++this.sent}` }] },
    };
  }

  private tokenRefused(auth: string | undefined): boolean {
    const token = (auth ?? '').replace(/^Bearer /, '');
    return this.acceptedTokens ? !this.acceptedTokens.includes(token) : token === '';
  }

  /** `GET /{media-id}`: Meta's media description, with a download URL on the (fake) lookaside host. */
  private mediaInfo(req: IncomingMessage, path: string): CloudAnswer {
    if (this.tokenRefused(req.headers.authorization))
      return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired');
    const id = decodeURIComponent(path.replace(/^\/v\d+\.\d+\//, '').split('?')[0]);
    const media = this.media.get(id);
    if (!media) return FakeCloudApi.error(400, 100, `Unsupported get request. Object with ID '${id}' does not exist`);
    if (media.metadataFailures) {
      media.metadataFailures--;
      return FakeCloudApi.error(500, 1, 'An unknown error occurred');
    }
    const origin = this.url.replace(/\/v\d+\.\d+$/, '');
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        url: `${origin}/whatsapp_business/attachments/?mid=${id}&ext=${Math.floor(Date.now() / 1000)}&hash=${randomBytes(6).toString('hex')}`,
        mime_type: media.mimeType,
        sha256: media.sha256 ?? createHash('sha256').update(media.bytes).digest('hex'),
        file_size: String(media.bytes.length),
        id,
      },
    };
  }

  /** The media URL: the bytes, only with the bearer token (as Meta's lookaside host), optionally slowly. */
  private serveMediaBytes(req: IncomingMessage, res: ServerResponse): void {
    const id = new URL(req.url ?? '/', 'http://fake').searchParams.get('mid') ?? '';
    const media = this.media.get(id);
    if (this.tokenRefused(req.headers.authorization) || !media) {
      res.writeHead(this.tokenRefused(req.headers.authorization) ? 401 : 404).end();
      return;
    }
    if (media.downloadFailures) {
      media.downloadFailures--;
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { 'content-type': media.mimeType, 'content-length': media.bytes.length });
    if (!media.chunkBytes) {
      res.end(media.bytes);
      return;
    }
    let offset = 0;
    const step = media.chunkBytes;
    const next = () => {
      if (res.destroyed) return;
      if (offset >= media.bytes.length) {
        res.end();
        return;
      }
      res.write(media.bytes.subarray(offset, offset + step));
      offset += step;
      setTimeout(next, media.chunkDelayMs ?? 0);
    };
    next();
  }

  /** Like Meta: multipart with `messaging_product=whatsapp`, `type` and `file`, behind the bearer token; answers `{ id }`. */
  private async uploadAnswer(
    request: CloudRequest,
    raw: Buffer,
    contentType: string,
    contentLength: string | undefined,
  ): Promise<CloudAnswer> {
    const upload: CloudUpload = { path: request.path, auth: request.auth, contentLength, fields: {}, file: null };
    this.uploads.push(upload);
    if (this.refusesToken(request)) return FakeCloudApi.error(401, 190, 'Error validating access token: Session has expired');
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), { headers: { 'content-type': contentType } }).formData();
    } catch {
      return FakeCloudApi.error(400, 100, '(#100) Invalid parameter: the body is not multipart/form-data.');
    }
    for (const [name, value] of form.entries()) {
      if (typeof value === 'string') upload.fields[name] = value;
      else if (name === 'file') {
        const bytes = Buffer.from(await value.arrayBuffer());
        upload.file = {
          name: value.name,
          type: value.type,
          size: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          head: bytes.subarray(0, 16),
        };
      }
    }
    const scripted = this.uploadScript.shift();
    if (scripted) return scripted;
    if (upload.fields.messaging_product !== 'whatsapp')
      return FakeCloudApi.error(400, 100, '(#100) The parameter messaging_product is required.');
    if (!upload.fields.type || !upload.file) return FakeCloudApi.error(400, 100, '(#100) The parameters type and file are required.');
    upload.id = String(1_037_543_291_543_600 + ++this.uploaded);
    return { status: 200, body: { id: upload.id } };
  }

  private templatePage(path: string): CloudAnswer {
    const url = new URL(path, this.url);
    if (url.searchParams.has('after') && this.staleCursors > 0) {
      // Graph API v24.0+: a cursor Meta no longer honours (Meta's changelog gives no code; 100 is its generic invalid parameter).
      this.staleCursors--;
      return FakeCloudApi.error(400, 100, '(#100) The pagination cursor is outdated or invalid. Request the first page again.');
    }
    const name = url.searchParams.get('name');
    if (name !== null) {
      // Filtered by name (and language): the templates the account holds, as `GET /{template-id}` reads them.
      const language = url.searchParams.get('language');
      const held = this.createdTemplates.filter((t) => t.name === name && (language === null || t.language === language));
      return { status: 200, body: { data: held.map((t) => FakeCloudApi.templateAsHeld(t, url.searchParams.get('fields'))) } };
    }
    const index = Number(url.searchParams.get('after') ?? 0);
    // Meta lists `quality_score` only when `fields` asks for it.
    const withQuality = (url.searchParams.get('fields') ?? '').split(',').includes('quality_score');
    const page = this.templatePages[index] ?? { data: [] };
    const data = withQuality ? page.data : page.data.map((t) => ({ ...(t as object), quality_score: undefined }));
    if (index + 1 >= this.templatePages.length) return { status: 200, body: { ...page, data } };
    url.searchParams.set('after', String(index + 1));
    return { status: 200, body: { ...page, data, paging: { next: url.toString() } } };
  }
}

const nowSeconds = () => String(Math.floor(Date.now() / 1000));
