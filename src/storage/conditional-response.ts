import type { IncomingHttpHeaders } from 'node:http';
import fresh from 'fresh';
import { combineRanges, parse as parseRange } from 'range-parser';

/** What a stored blob is known by: enough to answer conditional and range requests without reading it. */
export interface BlobValidators {
  size: number;
  etag: string;
  lastModified: Date;
}

/**
 * How to answer a GET/HEAD: the status and its headers; for 200 and 206 the body, which is the
 * byte range `bytes` or the whole blob when null. 304, 412 and 416 have none.
 */
export interface PlannedResponse {
  statusCode: 200 | 206 | 304 | 412 | 416;
  headers: Record<string, string>;
  bytes: { start: number; end: number } | null;
}

/** Content under a key never changes, so caches may keep it for good (as the local store says too). */
export const IMMUTABLE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * Plans the answer to a request for a blob the way the local store's @fastify/send answers one:
 * If-Match / If-Unmodified-Since (412), If-None-Match / If-Modified-Since (304), one byte range
 * (206), If-Range, and an unsatisfiable or malformed `bytes=` range (416). Several ranges get the
 * whole body (200), as there. A store that is not a file system fetches only the planned bytes.
 */
export function planResponse(request: IncomingHttpHeaders, blob: BlobValidators): PlannedResponse {
  const lastModified = blob.lastModified.toUTCString();
  const headers: Record<string, string> = {
    'accept-ranges': 'bytes',
    'cache-control': IMMUTABLE_CACHE_CONTROL,
    'last-modified': lastModified,
    etag: blob.etag,
  };
  if (preconditionFails(request, blob.etag, Date.parse(lastModified))) return { statusCode: 412, headers: {}, bytes: null };
  if (fresh(request, { etag: blob.etag, 'last-modified': lastModified })) {
    return { statusCode: 304, headers, bytes: null };
  }
  const range = request.range;
  if (range !== undefined && /^ *bytes=/.test(range) && rangeStillApplies(single(request['if-range']), blob.etag, Date.parse(lastModified))) {
    const ranges = combineRanges(parseRange(blob.size, range.trimStart()).ranges);
    if (ranges.length === 0) return { statusCode: 416, headers: { 'content-range': `bytes */${blob.size}` }, bytes: null };
    if (ranges.length === 1) {
      const { start, end } = ranges[0];
      headers['content-range'] = `bytes ${start}-${end}/${blob.size}`;
      headers['content-length'] = String(end - start + 1);
      return { statusCode: 206, headers, bytes: { start, end } };
    }
  }
  headers['content-length'] = String(blob.size);
  return { statusCode: 200, headers, bytes: null };
}

function preconditionFails(request: IncomingHttpHeaders, etag: string, lastModifiedMs: number): boolean {
  const ifMatch = request['if-match'];
  if (ifMatch && ifMatch.trim() !== '*' && !tokens(ifMatch).some((tag) => tag === etag || `W/${tag}` === etag)) return true;
  const unmodifiedSince = Date.parse(request['if-unmodified-since'] ?? '');
  return !Number.isNaN(unmodifiedSince) && lastModifiedMs > unmodifiedSince;
}

/** If-Range: the range holds only while the validator still names this content. */
function rangeStillApplies(ifRange: string | undefined, etag: string, lastModifiedMs: number): boolean {
  if (ifRange === undefined) return true;
  if (ifRange.includes('"')) return ifRange.includes(etag);
  const since = Date.parse(ifRange);
  return !Number.isNaN(since) && lastModifiedMs <= since;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function tokens(list: string): string[] {
  return list
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token !== '');
}
