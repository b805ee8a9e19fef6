import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { BlobStore } from '../storage/blob-store.js';

/** Media storage answers: always for local disk; for S3, the bucket within a second. */
@Injectable()
export class StorageHealthIndicator {
  constructor(
    private readonly blobs: BlobStore,
    private readonly indicator: HealthIndicatorService,
  ) {}

  async check(key = 'storage') {
    const indicator = this.indicator.check(key);
    const problem = await this.blobs.check();
    return problem === null ? indicator.up() : indicator.down({ message: problem });
  }
}
