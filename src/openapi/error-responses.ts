import type { OpenAPIObject } from '@nestjs/swagger';
import type { OperationObject, ParameterObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { forEachOperation, resolveSchema } from './document-walk.js';
import { errorExample } from './error-examples.js';

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelopeDto' };
const CHANNEL_NOT_FOUND = { $ref: '#/components/schemas/ChannelNotFoundError' };

/** Why each status can happen, as every operation shares it (API.md §1). */
const WHY: Record<number, string> = {
  400: 'Invalid input: malformed JSON, a field that fails validation, or a business rule (see `error.code` and `error.validationErrors`).',
  401: 'Missing, malformed, expired or revoked bearer token.',
  403: 'The token is valid but lacks the API scope.',
  404: 'An id that does not exist, or belongs to another workspace (`error.code` names which).',
  409: 'A conflict (see `error.code`).',
  413: 'The request body is larger than the limit.',
  415: 'The request body has a content type this operation does not take.',
  422: 'The same `Idempotency-Key` was used with a different request body (`Idempotency:KeyReused`).',
  429: 'Rate limit reached: wait the `Retry-After` seconds.',
  503: 'A dependency is out of reach (`Database:Unavailable` while PostgreSQL restarts, `Redis:Unavailable` for the send governor’s check, `Storage:Unavailable` for media): nothing was written; try again after `Retry-After` seconds.',
};

/**
 * Documents the error responses of every operation, derived from what the route is (API.md §1), so
 * a new controller gets them with no decorator of its own:
 * - a bearer-protected operation: 401 and 403; an admin one: 401 (wrong key) and 404 (admin API off);
 * - a request body or query parameters: 400; a request body: 413 and 415;
 * - path parameters: 404; a channel id anywhere in the input: 404 also as `ChannelNotFoundError`;
 * - an `Idempotency-Key` header: 409 (same key in flight) and 422 (same key, other body);
 * - every operation: 429 with `Retry-After`; every authenticated one: 503 with `Retry-After`.
 * A route documents a status of its own (`@ApiConflictResponse({ description })` for a unique
 * conflict, `@ApiBadRequestResponse` for a rule on a body-less call) with its description only;
 * the envelope schema is filled in here for every 4xx that has no content of its own, with an example
 * of that status whose code the operation can return (`errorExample`; a code named in the
 * description in backticks wins).
 */
export function documentErrorResponses(document: OpenAPIObject): void {
  addSharedComponents(document);
  forEachOperation(document, (operation, { path }) => {
    const derived = derivedStatuses(document, operation);
    const admin = isAdmin(document, operation);
    const channelInInput = takesChannelId(document, operation);
    const responses = operation.responses as Record<string, ResponseObject | ReferenceObject>;
    for (const [status, description] of derived) {
      const key = String(status);
      responses[key] ??= { description };
    }
    for (const [key, response] of Object.entries(responses)) {
      const status = Number(key);
      if (!((status >= 400 && status < 500) || status === 503) || '$ref' in response) continue;
      if (!response.content) {
        const schema = status === 404 && derived.get(404)?.includes('ChannelNotFoundError') ? channelNotFoundSchema(operation) : ENVELOPE;
        response.content = { 'application/json': { schema } };
      }
      const json = response.content['application/json'];
      // Only the envelope: Service Login's OAuth errors have a body of their own.
      const isEnvelope = json?.schema && /ErrorEnvelopeDto|ChannelNotFoundError/.test(JSON.stringify(json.schema));
      if (json && isEnvelope && !json.example && !json.examples) {
        json.example = errorExample(status, { path, operation, description: response.description, admin, takesChannelId: channelInInput });
      }
      if (status === 429) response.headers = { ...rateLimitHeaders(), ...response.headers };
      if (status === 503) response.headers = { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...response.headers };
    }
  });
}

function derivedStatuses(document: OpenAPIObject, operation: OperationObject): Map<number, string> {
  const statuses = new Map<number, string>();
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  const security = operation.security ?? document.security ?? [];
  if (isAdmin(document, operation)) {
    statuses.set(401, 'Missing or wrong admin key.');
    statuses.set(404, 'The admin API is off (`ADMIN_API_KEY` unset), or an id that does not exist.');
  } else if (security.length > 0) {
    statuses.set(401, WHY[401]);
    statuses.set(403, WHY[403]);
  }
  const hasQuery = parameters.some((p) => p.in === 'query');
  if (operation.requestBody || hasQuery) statuses.set(400, WHY[400]);
  if (operation.requestBody) {
    statuses.set(413, WHY[413]);
    statuses.set(415, WHY[415]);
  }
  if (parameters.some((p) => p.in === 'path')) statuses.set(404, statuses.get(404) ?? WHY[404]);
  if (takesChannelId(document, operation)) {
    statuses.set(
      404,
      `${statuses.get(404) ?? WHY[404]} A channel id that does not exist in the workspace, or has no capability for this operation, is a \`ChannelNotFoundError\`.`,
    );
  }
  if (parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) {
    statuses.set(409, 'A request with the same `Idempotency-Key` is still running (`Idempotency:InFlight`).');
    statuses.set(422, WHY[422]);
  }
  statuses.set(429, WHY[429]);
  if (security.length > 0) statuses.set(503, WHY[503]);
  return statuses;
}

function isAdmin(document: OpenAPIObject, operation: OperationObject): boolean {
  return (operation.security ?? document.security ?? []).some((requirement) => 'admin-key' in requirement);
}

/** A `channelId` in the path, the query or the top level of the JSON body. */
function takesChannelId(document: OpenAPIObject, operation: OperationObject): boolean {
  const isChannelId = (name: string) => name.toLowerCase() === 'channelid';
  if (((operation.parameters ?? []) as ParameterObject[]).some((p) => isChannelId(p.name))) return true;
  const body = operation.requestBody && 'content' in operation.requestBody ? operation.requestBody.content['application/json'] : undefined;
  const schema = body?.schema ? resolveSchema(document, body.schema) : undefined;
  return Object.keys(schema?.properties ?? {}).some(isChannelId);
}

/** Only a channel can be missing, or also another id of the path. */
function channelNotFoundSchema(operation: OperationObject): SchemaObject | ReferenceObject {
  const otherIds = ((operation.parameters ?? []) as ParameterObject[]).some((p) => p.in === 'path' && p.name.toLowerCase() !== 'channelid');
  return otherIds ? { anyOf: [CHANNEL_NOT_FOUND, ENVELOPE] } : CHANNEL_NOT_FOUND;
}

function rateLimitHeaders(): Record<string, ReferenceObject> {
  return {
    'Retry-After': { $ref: '#/components/headers/Retry-After' },
    'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
    'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
    'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  };
}

function addSharedComponents(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  const integer = (description: string) => ({ description, schema: { type: 'integer' as const, minimum: 0 } });
  components.headers = {
    ...components.headers,
    'Retry-After': integer('Seconds to wait before trying again.'),
    'X-RateLimit-Limit': integer('Requests allowed in the current window.'),
    'X-RateLimit-Remaining': integer('Requests left in the current window.'),
    'X-RateLimit-Reset': integer('Seconds until the window resets.'),
  };
  components.schemas = {
    ...components.schemas,
    ChannelNotFoundError: {
      description:
        "The error envelope of a channel id that does not exist in the caller's workspace, or has no capability for the operation (WhatsApp sends on a voice-only channel, calls on a WhatsApp-only channel): 404, code `Channels:ChannelNotFound`.",
      allOf: [ENVELOPE],
      example: {
        statusCode: 404,
        message: "Channel '0190a1b2-0000-7000-8000-000000000000' was not found.",
        error: {
          code: 'Channels:ChannelNotFound',
          message: "Channel '0190a1b2-0000-7000-8000-000000000000' was not found.",
          details: null,
          validationErrors: null,
        },
      },
    },
  };
}
