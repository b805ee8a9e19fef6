import type { ProviderAccess } from './call-intelligence.service.js';

/** A provider's refusal or failure; `retryable` for 408, 409, 429 and 5xx (and network errors), as OpenAI's SDKs retry. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 120_000;

/** Calls an OpenAI-compatible API (OpenAI, whisper.cpp's server, vLLM) once; the caller retries. */
export class OpenAiCompatibleClient {
  constructor(private readonly access: ProviderAccess) {}

  /** `POST /audio/transcriptions` with `response_format=verbose_json`: the segments (seconds). */
  async transcribe(wav: Buffer, fileName: string): Promise<Array<{ start: number; end: number; text: string }>> {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), fileName);
    form.append('model', this.access.model);
    form.append('response_format', 'verbose_json');
    form.append('timestamp_granularities[]', 'segment');
    const body = (await this.post('/audio/transcriptions', form)) as { segments?: Array<{ start: number; end: number; text: string }> };
    if (!Array.isArray(body.segments))
      throw new ProviderError('The transcription has no segments (verbose_json not supported?)', 200, false);
    return body.segments.map((s) => ({ start: Number(s.start), end: Number(s.end), text: String(s.text) }));
  }

  /** `POST /chat/completions` with a JSON-schema response format: the parsed JSON of the answer. */
  async completeJson<T>(messages: Array<{ role: 'system' | 'user'; content: string }>, name: string, schema: object): Promise<T> {
    const body = (await this.post('/chat/completions', {
      model: this.access.model,
      messages,
      response_format: { type: 'json_schema', json_schema: { name, strict: true, schema } },
    })) as { choices?: Array<{ message?: { content?: string | null; refusal?: string | null } }> };
    const message = body.choices?.[0]?.message;
    if (message?.refusal) throw new ProviderError(`The model refused: ${message.refusal}`, 200, false);
    try {
      return JSON.parse(message?.content ?? '') as T;
    } catch {
      throw new ProviderError('The model did not answer with JSON', 200, true);
    }
  }

  private async post(path: string, body: FormData | object): Promise<unknown> {
    // Not the provider's refusal, but as final: the operator must set the variable first.
    if (this.access.keyProblem) throw new ProviderError(this.access.keyProblem, null, false);
    const headers: Record<string, string> = this.access.apiKey ? { authorization: `Bearer ${this.access.apiKey}` } : {};
    let response: Response;
    try {
      response = await fetch(`${this.access.baseUrl}${path}`, {
        method: 'POST',
        headers: body instanceof FormData ? headers : { ...headers, 'content-type': 'application/json' },
        body: body instanceof FormData ? body : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new ProviderError(`${path}: ${(error as Error).message}`, null, true);
    }
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 500);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // not JSON: the text itself
      }
      const retryable = response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
      throw new ProviderError(`${path}: ${response.status} ${message}`, response.status, retryable);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ProviderError(`${path}: the answer is not JSON`, response.status, true);
    }
  }
}
