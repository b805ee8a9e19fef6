import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { annotateIntEnums, typeNullableEnumReferences } from './int-enum.js';

const DESCRIPTION = `Workspace-scoped messaging and contact management: WhatsApp messages and templates, contacts
with custom properties and an audit trail, conversations and tags, outbound IVR calls, signed webhooks.

Get a token with **Service Login** (\`POST /connect/token\`, client credentials) and send it as
\`Authorization: Bearer <token>\`. Property names in requests are case-insensitive. Every failure
answers with the error envelope (\`statusCode\`, \`message\`, \`error.code\`, \`error.validationErrors\`).`;

/** Builds the OpenAPI document of the running app with stable operation ids and sorted keys. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('Messaging and Contact Management API')
    .setDescription(DESCRIPTION)
    .setVersion('1.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from Service Login' })
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'ADMIN_API_KEY (operators only)' }, 'admin-key')
    .addSecurityRequirements('bearer')
    .build();
  const document = SwaggerModule.createDocument(app, config, {
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  markPublicOperations(document);
  const schemas = document.components?.schemas as Record<string, Record<string, unknown>> | undefined;
  annotateIntEnums(schemas);
  typeNullableEnumReferences(schemas);
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

/** Recursively sorts object keys so the checked-in document diffs cleanly. */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}
