import { isDeepStrictEqual } from 'node:util';
import type { OpenAPIObject } from '@nestjs/swagger';
import { EVENT_TYPES, eventPayloadSchemas } from '../webhooks/webhook-event-catalog.js';

type Json = Record<string, unknown>;

/** A value as it is served (keys whose value is undefined dropped). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** The Standard Webhooks headers of every delivery (API.md §11), as reusable header parameters. */
const WEBHOOK_HEADERS: Record<string, { name: string; description: string; schema: Json }> = {
  WebhookId: {
    name: 'webhook-id',
    description: 'The event id: the same on every attempt of one event, so deduplicate on it.',
    schema: { type: 'string' },
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    description: 'Unix seconds when this attempt was signed; refuse one too far from your clock (replays).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  WebhookSignature: {
    name: 'webhook-signature',
    description:
      "Space-separated `v1,<base64 HMAC-SHA256 of \"id.timestamp.body\">` with the `whsec_` secret (the endpoint's own, or the workspace's for a channel's or a request's URL); during a rotation both signatures are listed.",
    schema: { type: 'string' },
  },
};

const DELIVERY = `Delivered as Standard Webhooks: verify \`webhook-signature\` over the raw body before trusting it.
An endpoint receives \`{ type, timestamp, workspaceId, data }\` as below; for the three original kinds
(\`whatsapp.message\`, \`call\`, \`outbound_ivr.completed\`) a channel's or a request's own URL receives \`data\` alone.
A 2xx within 10 s ends the event; anything else is retried (by default after 2, 4, 8, 16 and 32 minutes), and a 410 stops it at once.`;

/**
 * The document's `webhooks` (OpenAPI 3.1): one POST per event type of the catalog, whose body is the
 * payload schema the catalog serves (the same components, from {@link eventPayloadSchemas}); a
 * component the routes already put in the document under the same name must be the same schema.
 */
export function describeWebhooks(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  const schemas = (components.schemas ??= {}) as Record<string, unknown>;
  const { components: payloadSchemas, payloadSchemaOf } = eventPayloadSchemas();
  for (const [name, schema] of Object.entries(payloadSchemas)) {
    if (name in schemas && !isDeepStrictEqual(asJson(schemas[name]), schema)) {
      throw new Error(
        `OpenAPI: the webhook catalog's schema ${name} differs from the document's schema of that name:\n${JSON.stringify(schema)}\n${JSON.stringify(schemas[name])}`,
      );
    }
    schemas[name] = schema;
  }
  const parameters = (components.parameters ??= {}) as Record<string, unknown>;
  for (const [key, header] of Object.entries(WEBHOOK_HEADERS)) parameters[key] = { in: 'header', required: true, ...header };
  const webhooks: Record<string, Json> = {};
  for (const entry of EVENT_TYPES) {
    webhooks[entry.type] = {
      post: {
        operationId: `${entry.type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Event`,
        summary: entry.type,
        description: `${entry.description}\n\n${DELIVERY}`,
        tags: ['Webhooks'],
        security: [],
        parameters: [
          ...Object.keys(WEBHOOK_HEADERS).map((key) => ({ $ref: `#/components/parameters/${key}` })),
          {
            in: 'header',
            name: 'webhook-event',
            required: true,
            description: 'The event type.',
            schema: { type: 'string', enum: [entry.type] },
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${payloadSchemaOf.get(entry.type)}` } } },
        },
        responses: {
          '2XX': { description: 'Received: the event is delivered, no more attempts.' },
          '410': { description: 'Gone: no more attempts of this event.' },
        },
      },
    };
  }
  (document as OpenAPIObject & { webhooks?: Record<string, Json> }).webhooks = webhooks;
}
