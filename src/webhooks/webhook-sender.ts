import http from 'node:http';
import https from 'node:https';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { AppConfig } from '../config/app-config.js';
import { checkLiteralHost, ForbiddenAddressError, guardedLookup } from './ssrf-guard.js';

export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface SignedRequest {
  webhookId: string;
  kind: string;
  targetUrl: string;
  body: string;
  /** Current secret first; during a rotation the previous one too. */
  secrets: string[];
  /** An endpoint's custom headers (never the Standard Webhooks ones, which are set after them). */
  headers?: Record<string, string>;
}

export type AttemptOutcome =
  | { kind: 'success'; statusCode: number }
  | { kind: 'http-failure'; statusCode: number; retryAfterMs: number | null }
  | { kind: 'network-failure'; error: string }
  | { kind: 'refused'; error: string };

/**
 * Sends one signed attempt (Standard Webhooks headers) with a 10 s deadline, following no
 * redirects, over connections whose resolved address passed the SSRF guard.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;
  private readonly allowPrivate: boolean;

  constructor(config: AppConfig) {
    this.allowPrivate = config.webhooks.allowPrivateNetworks;
    const lookup = guardedLookup(this.allowPrivate);
    this.httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256, lookup });
    this.httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256, lookup });
  }

  onApplicationShutdown(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  async send(request: SignedRequest): Promise<AttemptOutcome> {
    const url = new URL(request.targetUrl);
    try {
      checkLiteralHost(url.hostname, this.allowPrivate);
    } catch (err) {
      return { kind: 'refused', error: (err as Error).message };
    }
    const timestamp = new Date();
    const signature = request.secrets.map((secret) => new Webhook(secret).sign(request.webhookId, timestamp, request.body)).join(' ');
    const headers = {
      ...request.headers,
      'content-type': 'application/json',
      'user-agent': 'messaging-service-webhooks/1',
      'webhook-id': request.webhookId,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
      'webhook-event': request.kind,
      'content-length': String(Buffer.byteLength(request.body)),
    };
    try {
      const { statusCode, retryAfter } = await this.post(url, headers, request.body);
      if (statusCode >= 200 && statusCode < 300) return { kind: 'success', statusCode };
      return { kind: 'http-failure', statusCode, retryAfterMs: parseRetryAfter(retryAfter) };
    } catch (err) {
      if (err instanceof ForbiddenAddressError || (err as { cause?: unknown }).cause instanceof ForbiddenAddressError) {
        return { kind: 'refused', error: (err as Error).message };
      }
      return { kind: 'network-failure', error: describe(err) };
    }
  }

  private post(url: URL, headers: Record<string, string>, body: string): Promise<{ statusCode: number; retryAfter: string | undefined }> {
    const transport = url.protocol === 'https:' ? https : http;
    const agent = url.protocol === 'https:' ? this.httpsAgent : this.httpAgent;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method: 'POST', headers, agent, signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS) }, (res) => {
        res.resume(); // the body is not needed; read it so the connection can be reused
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}

/** `Retry-After` as seconds or an HTTP date, in ms from now. */
export function parseRetryAfter(value: string | undefined): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

function describe(err: unknown): string {
  const error = err as { name?: string; code?: string; message?: string };
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return `No response within ${ATTEMPT_TIMEOUT_MS / 1000} s`;
  return [error.code, error.message].filter(Boolean).join(': ') || 'Request failed';
}
