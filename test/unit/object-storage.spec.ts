import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppConfig } from '../../src/config/app-config.js';
import { validateEnv } from '../../src/config/env.schema.js';
import { planResponse, type BlobValidators } from '../../src/storage/conditional-response.js';

describe('object storage configuration', () => {
  const objectStorage = (env: Record<string, string>) => new AppConfig(validateEnv({ JWT_SECRET: 'x'.repeat(32), ...env })).objectStorage;

  it('keeps media on local disk unless S3_BUCKET is set', () => {
    assert.equal(objectStorage({}), null);
  });

  it('reads the bucket, endpoint, region, credentials, path style and key prefix', () => {
    assert.deepEqual(
      objectStorage({
        S3_BUCKET: 'acme-media',
        S3_ENDPOINT: 'http://minio.internal:9000/',
        S3_REGION: 'eu-west-1',
        S3_ACCESS_KEY_ID: 'key',
        S3_SECRET_ACCESS_KEY: 'secret',
        S3_FORCE_PATH_STYLE: 'true',
        S3_KEY_PREFIX: 'prod/media/',
      }),
      {
        bucket: 'acme-media',
        endpoint: 'http://minio.internal:9000',
        region: 'eu-west-1',
        credentials: { accessKeyId: 'key', secretAccessKey: 'secret' },
        forcePathStyle: true,
        keyPrefix: 'prod/media/',
      },
    );
    assert.deepEqual(objectStorage({ S3_BUCKET: 'acme-media' }), {
      bucket: 'acme-media',
      endpoint: undefined,
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
      keyPrefix: 'media/',
    });
  });

  it('refuses variables that mean nothing alone, naming them', () => {
    assert.throws(() => validateEnv({ S3_ENDPOINT: 'http://127.0.0.1:9000' }), /S3_ENDPOINT: set, but S3_BUCKET is not/);
    assert.throws(
      () => validateEnv({ S3_BUCKET: 'acme-media', S3_ACCESS_KEY_ID: 'key' }),
      /S3_ACCESS_KEY_ID \/ S3_SECRET_ACCESS_KEY: set both/,
    );
    for (const [name, value] of [
      ['S3_BUCKET', 'Acme_Media'],
      ['S3_ENDPOINT', 'minio:9000'],
      ['S3_KEY_PREFIX', 'media'],
      ['S3_KEY_PREFIX', '../media/'],
    ]) {
      assert.throws(() => validateEnv({ S3_BUCKET: 'acme-media', [name]: value }), new RegExp(`${name}=`), `${name}=${value}`);
    }
  });
});

describe('planning a media response from the stored size and time', () => {
  const blob: BlobValidators = { size: 10, etag: 'W/"a-1"', lastModified: new Date('2026-03-01T10:00:00.500Z') };
  const plan = (headers: Record<string, string>) => planResponse(headers, blob);

  it('answers the whole blob, or the one range asked for', () => {
    assert.deepEqual(plan({}), {
      statusCode: 200,
      bytes: null,
      headers: {
        'accept-ranges': 'bytes',
        'cache-control': 'public, max-age=31536000, immutable',
        'last-modified': 'Sun, 01 Mar 2026 10:00:00 GMT',
        etag: 'W/"a-1"',
        'content-length': '10',
      },
    });
    const partial = plan({ range: 'bytes=2-4' });
    assert.deepEqual([partial.statusCode, partial.bytes, partial.headers['content-range']], [206, { start: 2, end: 4 }, 'bytes 2-4/10']);
    assert.equal(partial.headers['content-length'], '3');
  });

  it('gives the whole file for a suffix longer than it (RFC 9110 §14.1.2)', () => {
    const suffix = plan({ range: 'bytes=-25' });
    assert.deepEqual([suffix.statusCode, suffix.bytes], [206, { start: 0, end: 9 }]);
  });

  it('ignores ranges of another unit, and answers overlapping ranges as one', () => {
    assert.equal(plan({ range: 'items=0-1' }).statusCode, 200);
    assert.deepEqual(plan({ range: 'bytes=0-3,2-5' }).bytes, { start: 0, end: 5 });
  });

  it('compares If-Modified-Since and If-Unmodified-Since at the second Last-Modified carries', () => {
    assert.equal(plan({ 'if-modified-since': 'Sun, 01 Mar 2026 10:00:00 GMT' }).statusCode, 304);
    assert.equal(plan({ 'if-modified-since': 'Sun, 01 Mar 2026 09:59:59 GMT' }).statusCode, 200);
    assert.equal(plan({ 'if-unmodified-since': 'Sun, 01 Mar 2026 10:00:00 GMT' }).statusCode, 200);
    assert.equal(plan({ 'if-match': '"b-2", "a-1"' }).statusCode, 200, 'a weak tag matches its strong form, as @fastify/send has it');
  });
});
