import { inTransaction } from '../../src/database/transactions.js';
import { Outbox } from '../../src/queue/outbox.service.js';
import { WebhookKind } from '../../src/webhooks/webhook-kind.js';
import { WebhookPublisher } from '../../src/webhooks/webhook-publisher.js';
import type { TestApp } from './test-app.js';

/** Publishes one event the way domain code does: in a transaction, then a kick after commit. */
export async function publishEvent(
  t: TestApp,
  workspaceId: string,
  targetUrl: string,
  payload: Record<string, unknown> = { hello: 'world' },
  kind = WebhookKind.Call,
): Promise<string> {
  const [job] = await inTransaction(() => t.app.get(WebhookPublisher).publish([{ workspaceId, kind, targetUrl, payload }]));
  t.app.get(Outbox).afterCommit();
  return String(job.payload.deliveryId);
}
