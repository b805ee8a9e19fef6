import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from '../config/load-config.js';
import { ErrorEnvelopeDto } from '../common/errors/error-envelope.js';
import { documentErrorResponses } from './error-responses.js';
import { finishComponentSchemas } from './component-schemas.js';
import { useJsonSchema2020Keywords } from './oas31-keywords.js';
import { describeWebhooks } from './webhooks-section.js';
import { listErrorCodes } from './error-codes-enum.js';
import { addRequestExamples } from './request-examples.js';
import {
  describeCallbacks,
  describePathParameters,
  nameOperationsBySummary,
  offerClientCredentials,
  orderTags,
} from './openapi-conventions.js';

const DESCRIPTION = `Workspace-scoped messaging and contact management: WhatsApp messages and templates, contacts
with custom properties and an audit trail, conversations and tags, outbound IVR calls, signed webhooks.

Get a token with **Service Login** (\`POST /connect/token\`, client credentials, in the body or as HTTP
Basic) and send it as \`Authorization: Bearer <token>\`; in Swagger UI, **Authorize** with the client id and
secret does it for you. Property names in requests are case-insensitive. Every failure
answers with the error envelope (\`statusCode\`, \`message\`, \`error.code\`, \`error.validationErrors\`).`;

/**
 * Builds the OpenAPI 3.1 document of the running app with stable operation ids, the webhooks of the
 * event catalog, and sorted keys. @nestjs/swagger writes 3.1's null types itself; the rest of 3.1
 * (JSON Schema 2020-12 keywords) is {@link useJsonSchema2020Keywords}.
 */
export function buildOpenApiDocument(app: INestApplication, options: { errorCodes?: readonly string[] } = {}): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Messaging and Contact Management API')
    .setDescription(DESCRIPTION)
    .setOpenAPIVersion('3.1.0')
    .setVersion('1.0')
    .addServer('/', 'This server')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from Service Login' })
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY (operators only)' }, 'admin-key')
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorEnvelopeDto] });
  markPublicOperations(document);
  nameOperationsBySummary(document);
  addRequestExamples(document);
  describePathParameters(document);
  orderTags(document);
  describeCallbacks(document);
  offerClientCredentials(document, loadConfig().auth.apiScope);
  documentErrorResponses(document);
  listErrorCodes(document, options.errorCodes);
  finishComponentSchemas(document.components?.schemas ?? {});
  useJsonSchema2020Keywords(document);
  describeWebhooks(document);
  return sortKeys(document) as OpenAPIObject;
}

/** Public operations without a scheme of their own (Service Login) declare that they need none. */
function markPublicOperations(document: OpenAPIObject): void {
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem) as Array<Record<string, unknown>>) {
      if (operation && typeof operation === 'object' && operation['x-public'] && !operation.security) operation.security = [];
    }
  }
}

/** Objects whose key order means something: Swagger UI's Authorize lists the schemes in this order. */
const ORDERED_KEYS = new Set(['securitySchemes']);

/** Recursively sorts object keys so the checked-in document diffs cleanly. */
export function sortKeys(value: unknown, keepOrder = false): unknown {
  if (Array.isArray(value)) return value.map((item) => sortKeys(item));
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (!keepOrder) keys.sort();
    return Object.fromEntries(keys.map((key) => [key, sortKeys((value as Record<string, unknown>)[key], ORDERED_KEYS.has(key))]));
  }
  return value;
}
