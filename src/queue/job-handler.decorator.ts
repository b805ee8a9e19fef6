import { SetMetadata } from '@nestjs/common';
import type { JobOf } from './job-payloads.js';
import type { JobName } from './queue-names.js';

export const JOB_HANDLER = Symbol('job-handler');

export interface JobHandlerOptions {
  /** Jobs of this name processed at once by one worker process. */
  concurrency?: number;
}

/**
 * Marks a provider method as the handler of one job name; the method receives `JobOf<name>`, so a
 * handler reading another shape does not compile. Handlers are bound to their queues only in
 * processes whose role runs workers; a job name without a handler fails the boot.
 */
export function JobHandler<N extends JobName>(name: N, options: JobHandlerOptions = {}) {
  return <H extends (job: JobOf<N>) => Promise<unknown>>(
    target: object,
    key: string | symbol,
    descriptor: TypedPropertyDescriptor<H>,
  ): void => {
    SetMetadata(JOB_HANDLER, { name, ...options })(target, key, descriptor);
  };
}
