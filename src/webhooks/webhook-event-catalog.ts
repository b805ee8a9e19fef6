import { dirname, join } from 'node:path';
import type { Type } from '@nestjs/common';
import { ContactDto } from '../contacts/dto/contact.dto.js';
import { ConversationDto } from '../conversations/dto/conversation.dto.js';
import { OutboundIvrWebhookPayload } from '../outbound-ivr/dto/outbound-ivr-request.dto.js';
import { finishComponentSchemas } from '../openapi/component-schemas.js';
import {
  CallAnalysisCompletedEventData,
  CallWebhookPayload,
  ChannelQualityUpdatedEventData,
  ContactMergedEventData,
  ContactUpdatedEventData,
  WebhookEndpointDisabledEventData,
  WhatsAppMessageWebhook,
  WhatsAppTemplateUpdatedEventData,
} from './dto/webhook-event-data.dto.js';
import { WebhookKind, WebhookEventType } from './webhook-kind.js';
import { UnknownEventType } from './webhooks.errors.js';

/** One event type of the catalog: what it is and the class its `data` is. */
export interface EventTypeEntry {
  type: string;
  description: string;
  data: Type<unknown>;
}

/** Every event type an endpoint can take (API.md §11.1), in the order the catalog lists them. */
export const EVENT_TYPES: readonly EventTypeEntry[] = [
  {
    type: WebhookKind.WhatsAppMessage,
    description: 'A WhatsApp message came in, or an outbound one changed status.',
    data: WhatsAppMessageWebhook,
  },
  {
    type: WebhookKind.Call,
    description:
      "A call of a voice channel ended (the Call Webhook). A recorded call's waits for its recording (recordingUrl) and, with a transcription provider, its analysis (transcription, summary, sentiment, evaluationCriteriaResult), at most CALL_INTELLIGENCE_WAIT.",
    data: CallWebhookPayload,
  },
  {
    type: WebhookKind.OutboundIvrCompleted,
    description: 'An outbound IVR call ended; recordingUrl is set when the call was recorded and its recording is stored already.',
    data: OutboundIvrWebhookPayload,
  },
  { type: WebhookEventType.ContactCreated, description: 'A contact was created.', data: ContactDto },
  {
    type: WebhookEventType.ContactUpdated,
    description: "A contact's fields, custom properties or consent changed: the contact now, and the changes as its history records them.",
    data: ContactUpdatedEventData,
  },
  { type: WebhookEventType.ContactDeleted, description: 'A contact was deleted: the contact as it was.', data: ContactDto },
  {
    type: WebhookEventType.ContactMerged,
    description: 'Two contacts turned out to be one WhatsApp user; one was merged into the other.',
    data: ContactMergedEventData,
  },
  { type: WebhookEventType.ConversationCreated, description: 'A conversation was opened.', data: ConversationDto },
  {
    type: WebhookEventType.ConversationAssigned,
    description: 'A conversation was assigned, reassigned or unassigned.',
    data: ConversationDto,
  },
  { type: WebhookEventType.ConversationStatusChanged, description: "A conversation's status changed.", data: ConversationDto },
  { type: WebhookEventType.ConversationTagsChanged, description: "A conversation's tags changed.", data: ConversationDto },
  {
    type: WebhookEventType.WebhookEndpointDisabled,
    description: 'Another endpoint of the workspace was disabled after failing for WEBHOOK_DISABLE_AFTER.',
    data: WebhookEndpointDisabledEventData,
  },
  {
    type: WebhookEventType.WhatsAppTemplateUpdated,
    description: "Meta changed a WhatsApp template's status (approved, rejected, paused, disabled…), category or quality score.",
    data: WhatsAppTemplateUpdatedEventData,
  },
  {
    type: WebhookEventType.ChannelQualityUpdated,
    description: "Meta changed a WhatsApp number's quality, throughput or messaging limit; the send governor uses the new tiers at once.",
    data: ChannelQualityUpdatedEventData,
  },
  {
    type: WebhookEventType.CallAnalysisCompleted,
    description:
      "A recorded call's transcript, summary, sentiment and criteria are ready (or failed for good, analysisError), after its Call Webhook went without them at CALL_INTELLIGENCE_WAIT.",
    data: CallAnalysisCompletedEventData,
  },
];

const TYPES = new Set(EVENT_TYPES.map((entry) => entry.type));

export function isEventType(type: string): boolean {
  return TYPES.has(type);
}

/** Throws a 400 naming `member` unless `type` is in the catalog. */
export function assertEventType(member: string, type: string): void {
  if (!isEventType(type)) throw UnknownEventType(member, type);
}

export type JsonSchema = Record<string, unknown>;

// @nestjs/swagger turns DTO classes into schemas with this factory; its package exports do not
// list it, so it is loaded by file path (the same code SwaggerModule.createDocument runs).
const swaggerDist = dirname(require.resolve('@nestjs/swagger'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SchemaObjectFactory } = require(join(swaggerDist, 'services', 'schema-object-factory.js'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ModelPropertiesAccessor } = require(join(swaggerDist, 'services', 'model-properties-accessor.js'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { SwaggerTypesMapper } = require(join(swaggerDist, 'services', 'swagger-types-mapper.js'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { convertNullableToOas31 } = require(join(swaggerDist, 'utils', 'nullable-to-oas31.util.js')) as {
  convertNullableToOas31(document: object): void;
};
const schemaFactory: { exploreModelSchema(type: Type<unknown>, schemas: Record<string, JsonSchema>): string } = new SchemaObjectFactory(
  new ModelPropertiesAccessor(),
  new SwaggerTypesMapper(),
);

/** The OpenAPI component schemas of every event type's `data`, and the name of each type's data schema. */
export function eventDataSchemas(): { components: Record<string, JsonSchema>; dataSchemaOf: Map<string, string> } {
  const components: Record<string, JsonSchema> = {};
  const dataSchemaOf = new Map(EVENT_TYPES.map((entry) => [entry.type, schemaFactory.exploreModelSchema(entry.data, components)]));
  return { components, dataSchemaOf };
}

/** The OpenAPI schema of a type's whole payload `{ type, timestamp, workspaceId, data }`, `data` by reference. */
export function envelopeSchema(type: string, dataRef: string): JsonSchema {
  return {
    type: 'object',
    required: ['type', 'timestamp', 'workspaceId', 'data'],
    properties: {
      type: { type: 'string', enum: [type] },
      timestamp: { type: 'string', format: 'date-time', description: 'ISO 8601 UTC: when the event was written.' },
      workspaceId: { type: 'string', format: 'uuid' },
      data: { $ref: dataRef },
    },
  };
}

/** The component name of a type's whole payload: `contact.updated` → `ContactUpdatedEvent`, `whatsapp.message` → `WhatsAppMessageEvent`. */
export function payloadSchemaName(type: string): string {
  const words = type.split(/[._]/).map((word) => (word === 'whatsapp' ? 'WhatsApp' : word.charAt(0).toUpperCase() + word.slice(1)));
  return `${words.join('')}Event`;
}

/**
 * Every event type's payload as OpenAPI 3.1 component schemas, the one source of both the
 * document's `webhooks` and the catalog: the `data` DTOs made as SwaggerModule makes them (the same
 * factory, its own 3.0 → 3.1 rewrite, then the document's finishing steps), and one envelope
 * schema per type ({@link payloadSchemaName}) that refers to its `data`.
 */
export function eventPayloadSchemas(): { components: Record<string, JsonSchema>; payloadSchemaOf: Map<string, string> } {
  const made = eventDataSchemas();
  // As JSON, the way both are served: the factory leaves keys whose value is undefined.
  const components = JSON.parse(JSON.stringify(made.components)) as Record<string, JsonSchema>;
  const dataSchemaOf = made.dataSchemaOf;
  convertNullableToOas31({ components: { schemas: components } });
  finishComponentSchemas(components);
  const payloadSchemaOf = new Map<string, string>();
  for (const entry of EVENT_TYPES) {
    const name = payloadSchemaName(entry.type);
    components[name] = {
      description: entry.description,
      ...envelopeSchema(entry.type, `#/components/schemas/${dataSchemaOf.get(entry.type)}`),
    };
    payloadSchemaOf.set(entry.type, name);
  }
  return { components, payloadSchemaOf };
}

/**
 * The catalog of GET /v1/webhook-event-types: each type with a self-contained JSON Schema (2020-12)
 * of its whole payload: its component of {@link eventPayloadSchemas}, with the components it
 * refers to as `$defs`.
 */
export function eventTypeCatalog(): Array<{ type: string; description: string; schema: JsonSchema }> {
  const { components, payloadSchemaOf } = eventPayloadSchemas();
  const defs = withDefsReferences(components) as Record<string, JsonSchema>;
  return EVENT_TYPES.map((entry) => {
    const { description, ...payload } = defs[payloadSchemaOf.get(entry.type)!];
    const dataName = String((payload.properties as Record<string, JsonSchema>).data.$ref).replace('#/$defs/', '');
    return {
      type: entry.type,
      description: String(description),
      schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', title: entry.type, ...payload, $defs: reachable(dataName, defs) },
    };
  });
}

/** The `$defs` a schema needs: `name` and every schema it refers to, transitively. */
function reachable(name: string, defs: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const found: Record<string, JsonSchema> = {};
  const visit = (key: string) => {
    if (found[key] || !defs[key]) return;
    found[key] = defs[key];
    for (const ref of JSON.stringify(defs[key]).matchAll(/"#\/\$defs\/([^"]+)"/g)) visit(ref[1]);
  };
  visit(name);
  return found;
}

/** Component references (`#/components/schemas/X`) become `$defs` ones (`#/$defs/X`), in a copy. */
function withDefsReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withDefsReferences);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      key === '$ref' && typeof child === 'string' ? child.replace('#/components/schemas/', '#/$defs/') : withDefsReferences(child),
    ]),
  );
}
