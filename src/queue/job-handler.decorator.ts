import { SetMetadata } from '@nestjs/common';
import type { JobName } from './queue-names.js';

export const JOB_HANDLER = Symbol('job-handler');

export interface JobHandlerOptions {
  /** Jobs of this name processed at once by one worker process. */
  concurrency?: number;
}

/**
 * Marks a provider method as the handler of one job name. Handlers are bound to their queues
 * only in processes whose role runs workers; a job name without a handler fails the boot.
 */
export const JobHandler = (name: JobName, options: JobHandlerOptions = {}) => SetMetadata(JOB_HANDLER, { name, ...options });
