import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';

/**
 * An S3-compatible server on 127.0.0.1 (s3rver, from npm), with its objects in a temp directory.
 * It speaks the S3 REST API and checks every request's SigV4 signature against its one account,
 * whose key id and secret are both `S3RVER`: a request signed with another secret is refused.
 */
export class S3Server {
  static readonly ACCESS_KEY_ID = 'S3RVER';
  static readonly SECRET_ACCESS_KEY = 'S3RVER';
  private server: S3rver | undefined;

  private constructor(
    readonly bucket: string,
    readonly directory: string,
    public port: number,
  ) {}

  /** Starts a server holding `bucket` (empty, or as an earlier run in `directory` left it). */
  static async start(bucket = 'media'): Promise<S3Server> {
    const s3 = new S3Server(bucket, mkdtempSync(join(tmpdir(), 's3-')), 0);
    await s3.resume();
    return s3;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The app's configuration for this server's bucket. */
  env(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      S3_BUCKET: this.bucket,
      S3_ENDPOINT: this.url,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: S3Server.ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY: S3Server.SECRET_ACCESS_KEY,
      S3_FORCE_PATH_STYLE: 'true',
      ...overrides,
    };
  }

  /** Keys of the objects in the bucket under `prefix`, with their sizes. */
  async objects(prefix = ''): Promise<Map<string, number>> {
    const { objects } = await this.running().store.listObjects(this.bucket, { prefix });
    return new Map(objects.map((object) => [object.key, object.size]));
  }

  /** Deletes an object through the S3 API, as someone else than the service would. */
  async remove(key: string): Promise<void> {
    const client = new S3Client({
      endpoint: this.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: S3Server.ACCESS_KEY_ID, secretAccessKey: S3Server.SECRET_ACCESS_KEY },
    });
    try {
      await client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } finally {
      client.destroy();
    }
    if ((await this.objects(key)).has(key)) throw new Error(`${key} is still in the bucket`);
  }

  /** Stops answering (connections dropped), keeping the objects: an outage. */
  async stop(): Promise<void> {
    const server = this.running();
    this.server = undefined;
    server.httpServer.closeAllConnections();
    await server.close();
  }

  /** Answers again on the same port, with the objects it had. */
  async resume(): Promise<void> {
    const server = new S3rver({
      address: '127.0.0.1',
      port: this.port,
      directory: this.directory,
      silent: true,
      configureBuckets: [{ name: this.bucket }],
    });
    this.port = (await server.run()).port;
    this.server = server;
  }

  async close(): Promise<void> {
    if (this.server) await this.stop();
    rmSync(this.directory, { recursive: true, force: true });
  }

  private running(): S3rver {
    if (!this.server) throw new Error('The S3 server is stopped');
    return this.server;
  }
}
