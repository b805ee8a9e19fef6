import type { OpenAPIObject, OperationObject, ParameterObject } from '@nestjs/swagger';
import { forEachOperation } from './document-walk.js';
import { TAGS } from './tags.js';

/**
 * The operationId of an operation is its summary in camelCase (`Service Login` → `serviceLogin`,
 * `List Templates (Service Account)` → `listTemplatesServiceAccount`), so generated clients read like
 * the specification. Summaries are unique, hence so are the ids; a duplicate fails the build.
 */
export function operationIdOf(summary: string): string {
  const words = summary.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words
    .map((word, i) => {
      const lower = word === word.toUpperCase() ? word.toLowerCase() : word;
      return i === 0 ? lower.charAt(0).toLowerCase() + lower.slice(1) : lower.charAt(0).toUpperCase() + lower.slice(1);
    })
    .join('');
}

export function nameOperationsBySummary(document: OpenAPIObject): void {
  const seen = new Map<string, string>();
  forEachOperation(document, (operation, { path, method }) => {
    const where = `${method.toUpperCase()} ${path}`;
    if (!operation.summary) throw new Error(`OpenAPI: ${where} has no summary (@ApiOperation({ summary })).`);
    const id = operationIdOf(operation.summary);
    const other = seen.get(id);
    if (other) throw new Error(`OpenAPI: ${where} and ${other} share the operationId '${id}': give them distinct summaries.`);
    seen.set(id, where);
    operation.operationId = id;
  });
}

/** Words for the resource a path segment holds, where plain singular does not read well. */
const RESOURCE_OF_SEGMENT: Record<string, string> = {
  'outbound-ivr': 'outbound IVR request',
  'outbound-ivr-flows': 'outbound IVR flow',
  'contact-property-definitions': 'contact property definition',
  'webhook-deliveries': 'webhook delivery',
  tags: 'tag',
};
const RESOURCE_OF_PARAMETER: Record<string, string> = {
  propertyId: 'contact property definition (as listed by List Contact Properties, not a value record)',
};

/** `channelId` → "channel"; `id` after `/v1/contacts/` → "contact". */
function resourceOf(name: string, path: string): string {
  if (RESOURCE_OF_PARAMETER[name]) return RESOURCE_OF_PARAMETER[name];
  if (name !== 'id')
    return name
      .replace(/Id$/, '')
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase();
  const before = path
    .split('/{id}')[0]
    .split('/')
    .filter((s) => s !== 'service-account');
  const segment = before.at(-1) ?? '';
  return RESOURCE_OF_SEGMENT[segment] ?? segment.replace(/-/g, ' ').replace(/ies$/, 'y').replace(/s$/, '');
}

/** Path ids are UUIDs and say what they name, unless the route describes them itself (`@ApiParam`). */
export function describePathParameters(document: OpenAPIObject): void {
  forEachOperation(document, (operation, { path }) => {
    for (const parameter of (operation.parameters ?? []) as ParameterObject[]) {
      if (parameter.in !== 'path') continue;
      const isId = parameter.name === 'id' || parameter.name.endsWith('Id');
      if (isId) parameter.schema = { ...parameter.schema, type: 'string', format: 'uuid' };
      parameter.description ??= isId ? `Id of the ${resourceOf(parameter.name, path)}.` : parameter.name;
    }
  });
}

/** Every tag in use, in the order of {@link TAGS}; a tag missing there goes before Admin, undescribed. */
export function orderTags(document: OpenAPIObject): void {
  const used = new Set<string>();
  forEachOperation(document, (operation) => operation.tags?.forEach((tag) => used.add(tag)));
  const known = TAGS.filter((tag) => used.has(tag.name));
  const unknown = [...used].filter((name) => !TAGS.some((tag) => tag.name === name)).map((name) => ({ name }));
  const adminAt = known.findIndex((tag) => tag.name === 'Admin');
  document.tags = adminAt < 0 ? [...known, ...unknown] : [...known.slice(0, adminAt), ...unknown, ...known.slice(adminAt)];
}

/**
 * Bearer operations take a token from OAuth2 client credentials (what Swagger UI's Authorize asks
 * for) or a token pasted as is; both are the same JWT.
 */
export function offerClientCredentials(document: OpenAPIObject, apiScope: string): void {
  const schemes = document.components?.securitySchemes ?? {};
  if (document.components) {
    document.components.securitySchemes = {
      oauth2: {
        type: 'oauth2',
        description: 'Client credentials of a service account: Swagger UI gets the token from Service Login.',
        flows: { clientCredentials: { tokenUrl: '/connect/token', scopes: { [apiScope]: 'The messaging API (the default scope).' } } },
      },
      ...schemes,
    };
  }
  forEachOperation(document, (operation) => {
    if (operation.security?.length === 1 && 'bearer' in operation.security[0]) operation.security = [{ oauth2: [] }, { bearer: [] }];
  });
}

/**
 * Webhook callbacks (`@ApiCallbacks`) read as operations of the receiver: named after the callback
 * (`outboundIvrCompleted` → "Outbound IVR Completed Webhook"), and a 410 answer stops the retries.
 */
export function describeCallbacks(document: OpenAPIObject): void {
  forEachOperation(document, (operation) => {
    for (const [name, callback] of Object.entries(operation.callbacks ?? {})) {
      for (const item of Object.values(callback as Record<string, Record<string, OperationObject>>)) {
        for (const callbackOperation of Object.values(item)) {
          const words = name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/\bIvr\b/gi, 'IVR');
          callbackOperation.summary ??= `${words.charAt(0).toUpperCase()}${words.slice(1)} Webhook`;
          callbackOperation.operationId ??= `${name}Webhook`;
          callbackOperation.description ??=
            'Sent by this service to the address given in the request, signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`).';
          callbackOperation.responses['410'] ??= { description: 'Gone: no more attempts of this event.' };
        }
      }
    }
  });
}
