import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * An OpenAI-compatible server on 127.0.0.1 answering as OpenAI documents: `POST /audio/transcriptions`
 * (multipart; `response_format=verbose_json` gives `segments` with `start`/`end`/`text` in seconds) and
 * `POST /chat/completions` (a `chat.completion` whose message content is what the test scripts), errors
 * as `{ "error": { "message", "type", "param", "code" } }` with 401, 429 and 5xx.
 */
export interface FakeSegment {
  start: number;
  end: number;
  text: string;
}

export interface ReceivedOpenAiRequest {
  path: string;
  authorization: string | undefined;
  /** Multipart fields (the file as its size and name) or the JSON body. */
  fields: Record<string, unknown>;
  fileBytes?: Buffer;
}

/** One scripted failure: the next request to `path` gets this status and OpenAI's error body. */
export interface FakeFailure {
  path: '/audio/transcriptions' | '/chat/completions';
  status: 429 | 500 | 503 | 401;
}

const ERRORS: Record<number, { message: string; type: string; code: string | null }> = {
  401: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
  429: { message: 'Rate limit reached for requests. Please try again in 1s.', type: 'requests', code: 'rate_limit_exceeded' },
  500: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', code: null },
  503: { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', code: null },
};

export class FakeOpenAi {
  readonly requests: ReceivedOpenAiRequest[] = [];
  /** Segments answered per transcription, in the order the requests come (the last repeats). */
  transcripts: FakeSegment[][] = [[{ start: 0, end: 1, text: 'Hello.' }]];
  /** The assistant's message content for chat completions (JSON text for a json_schema response_format). */
  completion = JSON.stringify({ summary: 'A short call.', sentiment: 'Neutral', evaluationCriteriaResult: [] });
  /** Failures answered before any success, in order. */
  failures: FakeFailure[] = [];
  /** Delay before every answer (slow providers). */
  delayMs = 0;
  apiKey: string | null = null;
  private transcriptions = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(port = 0): Promise<FakeOpenAi> {
    const holder: { fake?: FakeOpenAi } = {};
    const server = createServer((req, res) => void holder.fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    holder.fake = new FakeOpenAi(server, `http://127.0.0.1:${address.port}/v1`);
    return holder.fake;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = (req.url ?? '').replace(/^\/v1/, '');
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${randomBytes(8).toString('hex')}` });
      res.end(JSON.stringify(json));
    };
    const error = (status: number, overrides: Partial<{ message: string; type: string; code: string | null; param: string | null }> = {}) =>
      send(status, { error: { param: null, ...(ERRORS[status] ?? ERRORS[500]), ...overrides } });

    if (req.method !== 'POST' || (path !== '/audio/transcriptions' && path !== '/chat/completions'))
      return error(404, { message: `Invalid URL (${req.method} /v1${path})`, type: 'invalid_request_error', code: null });
    const record: ReceivedOpenAiRequest = { path, authorization: req.headers.authorization, fields: {} };
    this.requests.push(record);
    if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) return error(401);
    const failure = this.failures.findIndex((f) => f.path === path);
    if (failure >= 0) return error(this.failures.splice(failure, 1)[0].status);

    if (path === '/audio/transcriptions') {
      const form = await new Request('http://fake/', {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body,
      })
        .formData()
        .catch(() => null);
      if (!form) return error(400, { message: 'Could not parse multipart form', type: 'invalid_request_error', code: null });
      for (const [key, value] of form.entries())
        record.fields[key] = typeof value === 'string' ? value : { name: value.name, size: value.size, type: value.type };
      const file = form.get('file');
      if (!file || typeof file === 'string')
        return error(400, { message: "you must provide a 'file'", type: 'invalid_request_error', param: 'file', code: null });
      if (!form.get('model'))
        return error(400, { message: 'you must provide a model parameter', type: 'invalid_request_error', param: 'model', code: null });
      record.fileBytes = Buffer.from(await file.arrayBuffer());
      const segments = this.transcripts[Math.min(this.transcriptions++, this.transcripts.length - 1)];
      const text = segments.map((s) => s.text).join(' ');
      if (form.get('response_format') !== 'verbose_json') return send(200, { text });
      return send(200, {
        task: 'transcribe',
        language: 'english',
        duration: segments.at(-1)?.end ?? 0,
        text,
        segments: segments.map((s, id) => ({
          id,
          seek: 0,
          start: s.start,
          end: s.end,
          text: s.text,
          tokens: [],
          temperature: 0,
          avg_logprob: -0.2,
          compression_ratio: 1.2,
          no_speech_prob: 0.01,
        })),
      });
    }

    let json: Record<string, unknown>;
    try {
      json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return error(400, { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', code: null });
    }
    record.fields = json;
    if (!json.model || !Array.isArray(json.messages))
      return error(400, {
        message: "Missing required parameter: 'messages'.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'missing_required_parameter',
      });
    return send(200, {
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: json.model,
      choices: [
        { index: 0, message: { role: 'assistant', content: this.completion, refusal: null }, logprobs: null, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
    });
  }
}
