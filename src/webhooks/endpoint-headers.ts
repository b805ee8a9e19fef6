import { ForbiddenHeader, TooManyHeaders } from './webhooks.errors.js';

export const MAX_ENDPOINT_HEADERS = 10;

/** RFC 9110 §5.1 field name (a token). */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Visible ASCII, spaces and tabs, obs-text: no CR, LF or NUL (which would split or end the header). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** RFC 9110 §7.6.1 hop-by-hop fields, and those the sender sets from the request itself. */
const RESERVED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
]);

/** Custom headers of an endpoint: at most ten, valid names and values, no hop-by-hop ones and none of the signature's (`webhook-*`). */
export function assertEndpointHeaders(headers: Record<string, unknown>): void {
  const entries = Object.entries(headers);
  if (entries.length > MAX_ENDPOINT_HEADERS) throw TooManyHeaders(MAX_ENDPOINT_HEADERS);
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!FIELD_NAME.test(name)) throw ForbiddenHeader(name, 'not a valid header name');
    if (lower.startsWith('webhook-')) throw ForbiddenHeader(name, 'the webhook-* headers carry the Standard Webhooks signature');
    if (RESERVED.has(lower)) throw ForbiddenHeader(name, 'it is a hop-by-hop header or one the request sets itself');
    if (typeof value !== 'string' || value.length > 1000 || !FIELD_VALUE.test(value)) {
      throw ForbiddenHeader(name, 'its value must be a string of at most 1000 characters without line breaks');
    }
  }
}
