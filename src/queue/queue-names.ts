/**
 * Queue and job names are a persistent contract: jobs already in Redis carry them, so a name
 * is never renamed or reused for something else. Every job name belongs to exactly one queue.
 */
export enum QueueName {
  Maintenance = 'maintenance',
}

export enum JobName {
  PurgeExpiredIdempotencyKeys = 'maintenance.purge-expired-idempotency-keys',
}

export const QUEUE_OF_JOB: Record<JobName, QueueName> = {
  [JobName.PurgeExpiredIdempotencyKeys]: QueueName.Maintenance,
};

export const ALL_QUEUES: QueueName[] = Object.values(QueueName);
