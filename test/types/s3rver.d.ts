/** The parts of @20minutes/s3rver (a fake S3 server that checks SigV4 signatures) the tests use. */
declare module '@20minutes/s3rver' {
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    configureBuckets?: Array<{ name: string }>;
  }

  class S3rver {
    constructor(options: S3rverOptions);
    httpServer: Server;
    store: {
      listObjects(bucket: string, options: { prefix?: string }): Promise<{ objects: Array<{ key: string; size: number }> }>;
    };
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }

  export = S3rver;
}
