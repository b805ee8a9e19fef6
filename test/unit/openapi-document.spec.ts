import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import 'reflect-metadata';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from '@nestjs/swagger';
import { createApp } from '../../src/create-app.js';
import { buildOpenApiDocument } from '../../src/openapi/openapi-document.js';
import { forEachOperation, resolveSchema } from '../../src/openapi/document-walk.js';
import { operationIdOf } from '../../src/openapi/openapi-conventions.js';
import { useJsonSchema2020Keywords } from '../../src/openapi/oas31-keywords.js';
import { eventTypeCatalog } from '../../src/webhooks/webhook-event-catalog.js';
import { ERROR_CODES } from '../../src/common/errors/error-codes.js';
import { scanErrorCodes } from '../../scripts/error-codes.js';
import { REQUEST_BODY_EXAMPLES } from '../../src/openapi/request-examples.js';
import { DEMO_CHANNEL_ID } from '../../src/database/demo-channel-id.js';
import type { ErrorEnvelopeDto } from '../../src/common/errors/error-envelope.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an integrator reads: the document built from the app's routes, as `npm run openapi` writes it. */
describe('The OpenAPI document', () => {
  let doc: OpenAPIObject;
  const operations: Array<{ where: string; op: OperationObject }> = [];

  before(async () => {
    process.env.JWT_SECRET ??= 'openapi-document-test-'.padEnd(40, 'x');
    const app = await createApp({ preview: true });
    doc = buildOpenApiDocument(app);
    forEachOperation(doc, (op, { path, method }) => operations.push({ where: `${method.toUpperCase()} ${path}`, op }));
  });

  const failing = (check: (op: OperationObject) => boolean) => operations.filter(({ op }) => !check(op)).map(({ where }) => where);
  const responses = (op: OperationObject) => op.responses as Record<string, ResponseObject>;
  const parameters = (op: OperationObject) => (op.parameters ?? []) as ParameterObject[];
  const byId = (id: string) => operations.find(({ op }) => op.operationId === id)?.op;

  it('names operations as the specification does, with unique summaries and a description each', () => {
    assert.ok(operations.length >= 60, `only ${operations.length} operations`);
    assert.deepEqual(
      failing((op) => op.operationId === operationIdOf(op.summary ?? '')),
      [],
    );
    const summaries = operations.map(({ op }) => op.summary);
    assert.equal(new Set(summaries).size, summaries.length, 'summaries are unique');
    assert.deepEqual(
      failing((op) => (op.description ?? '').trim().length > 10),
      [],
      'operations without a description',
    );
    const expected: Record<string, string> = {
      serviceLogin: 'POST /connect/token',
      getChannels: 'GET /v1/channels/service-account',
      setPropertyValueOnContact: 'PUT /v1/contacts/{contactId}/properties/{propertyId}',
      sendTemplate: 'POST /v1/whatsapp/service-account/sendTemplate',
      createOutboundIvr: 'POST /v1/outbound-ivr',
      listTemplatesServiceAccount: 'GET /v1/whatsapp/service-account/templates',
      uploadImageVideoOrPdf: 'POST /v1/support/upload',
      getWorkspaceUsers: 'GET /v1/workspaces/users',
    };
    for (const [id, where] of Object.entries(expected)) {
      assert.equal(operations.find(({ op }) => op.operationId === id)?.where, where, id);
    }
  });

  it('documents the error envelope on every 4xx, and 429 with Retry-After on every operation', () => {
    assert.deepEqual(
      failing((op) =>
        Object.entries(responses(op)).every(([status, r]) => !status.startsWith('4') || Boolean(r.content?.['application/json']?.schema)),
      ),
      [],
      '4xx without a schema',
    );
    assert.deepEqual(
      failing((op) => Boolean(responses(op)['429']?.headers?.['Retry-After'])),
      [],
    );
    const envelope = responses(byId('getContactById')!)['404'].content!['application/json'].schema;
    assert.deepEqual(envelope, { $ref: '#/components/schemas/ErrorEnvelopeDto' });
  });

  it('derives the statuses from what the route takes', () => {
    const bearer = operations.filter(({ op }) => op.security?.some((s) => 'bearer' in s));
    assert.ok(bearer.length >= 50);
    for (const { where, op } of bearer) {
      assert.deepEqual(op.security, [{ oauth2: [] }, { bearer: [] }], where);
      assert.ok(responses(op)['401'] && responses(op)['403'], `${where}: 401 and 403`);
    }
    assert.deepEqual(
      failing((op) => !op.requestBody || ['400', '413', '415'].every((s) => responses(op)[s])),
      [],
      'a body without 400/413/415',
    );
    assert.deepEqual(
      failing((op) => !parameters(op).some((p) => p.in === 'path') || Boolean(responses(op)['404'])),
      [],
      'path ids without 404',
    );
    assert.deepEqual(
      failing((op) => !parameters(op).some((p) => p.name === 'Idempotency-Key') || Boolean(responses(op)['409'] && responses(op)['422'])),
      [],
      'Idempotency-Key without 409/422',
    );
    for (const id of ['sendTemplate', 'sendText', 'createOutboundIvr', 'listTemplatesServiceAccount', 'listConversations']) {
      assert.match(JSON.stringify(responses(byId(id)!)['404'].content), /ChannelNotFoundError/, id);
    }
    for (const id of ['createContact', 'createContactProperty', 'createTag', 'deleteTag']) assert.ok(responses(byId(id)!)['409'], id);
  });

  it('describes every path id as a UUID', () => {
    const ids = operations.flatMap(({ where, op }) =>
      parameters(op)
        // Delete Template takes the template's name (API.md §14), the one path parameter that is no id.
        .filter((p) => p.in === 'path' && !(p.name === 'name' && where.includes('/v1/whatsapp/templates/{name}')))
        .map((p) => ({ where, p })),
    );
    const templateName = parameters(byId('deleteTemplate')!).find((p) => p.name === 'name');
    assert.equal((templateName?.schema as SchemaObject).type, 'string');
    assert.match(templateName?.description ?? '', /name of the template/);
    assert.ok(ids.length >= 30);
    for (const { where, p } of ids) {
      assert.match(p.description ?? '', /^Id of the [a-z]/, `${where} ${p.name}`);
      assert.equal((p.schema as SchemaObject).format, 'uuid', `${where} ${p.name}`);
    }
    const contact = parameters(byId('getContactById')!).find((p) => p.name === 'id');
    assert.equal(contact?.description, 'Id of the contact.');
  });

  it('marks paging optional with its defaults, and what the server requires as required', () => {
    for (const { where, op } of operations) {
      for (const p of parameters(op).filter((p) => /^(skipCount|maxResultCount)$/.test(p.name))) {
        assert.notEqual(p.required, true, `${where} ${p.name}`);
      }
    }
    const paging = parameters(byId('getContacts')!);
    assert.equal((paging.find((p) => p.name === 'maxResultCount')?.schema as SchemaObject).default, 20);
    assert.equal((paging.find((p) => p.name === 'skipCount')?.schema as SchemaObject).default, 0);
    const schemas = doc.components!.schemas as Record<string, SchemaObject>;
    assert.deepEqual(schemas.SearchContactsDto.required ?? [], []);
    assert.deepEqual(schemas.TokenRequestDto.required, ['grant_type']);
    assert.deepEqual(schemas.SendTemplateDto.required?.slice().sort(), ['channelId', 'language', 'templateName']);
  });

  it('accepts an integer or a name where the server does', () => {
    const schemas = doc.components!.schemas as Record<string, SchemaObject>;
    const types = (s: SchemaObject | undefined) => (s?.oneOf as SchemaObject[] | undefined)?.map((b) => b.type ?? '$ref').sort();
    assert.deepEqual(types(schemas.CreateContactPropertyDto.properties!.type as SchemaObject), ['integer', 'string']);
    assert.deepEqual(types(schemas.CreateOutboundIvrRequest.properties!.ttsVoice as SchemaObject), ['integer', 'string']);
    assert.deepEqual(types((schemas.CreateContactPropertyDto.properties!.selectOptions as SchemaObject).items as SchemaObject), [
      '$ref',
      'string',
    ]);
  });

  it('has the schemas the specification names, ChannelNotFoundError among them', () => {
    const named =
      'ConversationDto ChannelConversationDto ConversationTimelineDto CreateTagDto UpdateTagDto TagDto ServiceAccountTemplateDto ServiceAccountTemplateParameterDto TemplateParameterDto ParameterValueDto AiSummaryDto ReplyInfoDto InternalThreadDto LocationMessageDto AssignationInfoDto PagedResultOfTagDto PagedResultOfConversationDto PagedResultOfConversationTimelineDto ChannelNotFoundError CreateOutboundIvrRequest OutboundIvrRequest OutboundIvrOption OutboundIvrStep OutboundIvrQuestionStepProps OutboundIvrFlow SaveOutboundIvrFlow OutboundIvrAnswer OutboundIvrStatus OutboundIvrResult OutboundIvrAudioType OutboundIvrWebhookPayload ErrorEnvelopeDto';
    assert.deepEqual(
      named.split(' ').filter((name) => !doc.components?.schemas?.[name]),
      [],
    );
    const channelNotFound = resolveSchema(doc, { $ref: '#/components/schemas/ChannelNotFoundError' });
    assert.ok(channelNotFound?.properties?.error, 'ChannelNotFoundError is the envelope');
    assert.match(JSON.stringify(doc.components?.schemas?.ChannelNotFoundError), /Channels:ChannelNotFound/);
  });

  it('orders described tags (Account API first, Admin last), has a server and offers client credentials first', () => {
    const tags = doc.tags ?? [];
    assert.equal(tags[0]?.name, 'Account API');
    assert.equal(tags.at(-1)?.name, 'Admin');
    assert.deepEqual(
      tags.filter((t) => !t.description).map((t) => t.name),
      [],
      'tags without a description: add them to src/openapi/tags.ts',
    );
    const used = new Set(operations.flatMap(({ op }) => op.tags ?? []));
    assert.deepEqual(
      tags.map((t) => t.name),
      tags.map((t) => t.name).filter((name) => used.has(name)),
    );
    assert.ok((doc.servers ?? []).length > 0);
    const schemes = doc.components?.securitySchemes ?? {};
    assert.deepEqual(Object.keys(schemes), ['oauth2', 'bearer', 'admin-key']);
    assert.equal(
      (schemes.oauth2 as { flows: { clientCredentials: { tokenUrl: string } } }).flows.clientCredentials.tokenUrl,
      '/connect/token',
    );
  });

  it('gives request examples that an integrator can run', () => {
    const examples = (id: string) => {
      const content = (byId(id)?.requestBody as { content: Record<string, { examples?: Record<string, { value: unknown }> }> }).content;
      return Object.values(content).flatMap((media) => Object.values(media.examples ?? {}).map((e) => e.value));
    };
    assert.ok(examples('serviceLogin').some((v) => (v as { grant_type?: string }).grant_type === 'client_credentials'));
    assert.ok(examples('createOutboundIvr').length >= 2);
    assert.ok(examples('createOutboundIvrFlow').length >= 1);
    assert.ok(examples('sendTemplate').every((v) => Array.isArray((v as { parameters?: unknown[] }).parameters)));
    assert.ok(examples('createContact').length >= 1);
  });

  it('gives every JSON request body an example, the intended one first, on the demo channel', () => {
    const bodies = operations.flatMap(({ where, op }) => {
      const content = (op.requestBody as { content?: Record<string, { examples?: Record<string, { value: unknown }> }> } | undefined)
        ?.content;
      const json = content?.['application/json'];
      return json ? [{ where, id: op.operationId!, json }] : [];
    });
    assert.ok(bodies.length >= 48, `only ${bodies.length} JSON bodies`);
    assert.deepEqual(
      bodies.filter(({ json }) => Object.keys(json.examples ?? {}).length === 0).map(({ where }) => where),
      [],
      'JSON request bodies without an example',
    );
    // Keys are sorted in the document: the example Swagger UI fills in must still be the intended one.
    for (const { where, id, json } of bodies) {
      assert.equal(Object.keys(json.examples!)[0], Object.keys(REQUEST_BODY_EXAMPLES[id])[0], `${where}: the default example`);
    }
    const values = JSON.stringify(bodies.map(({ json }) => json.examples));
    const channelIds = [...values.matchAll(/"channelIds?":\[?"([^"]+)"/g)].map((match) => match[1]);
    assert.ok(channelIds.length >= 20);
    assert.deepEqual([...new Set(channelIds)], [DEMO_CHANNEL_ID], 'examples name the demo channel');
    assert.doesNotMatch(values, /966501234567|9665012345|96650111000/, "the README walkthrough's numbers");
    const sendText = bodies.find(({ id }) => id === 'sendText')!.json.examples!;
    assert.ok(
      Object.values(sendText).every(({ value }) => !('contactId' in (value as object) && 'toNumber' in (value as object))),
      'a send names toNumber or contactId, not both',
    );
  });

  it('shows, on every error response, an example of its own status with a code the service has', () => {
    const source = readdirSync('src', { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.parentPath.includes('openapi'))
      .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
      .join('\n');
    const shown = new Map<string, string>();
    let checked = 0;
    for (const { where, op } of operations) {
      for (const [status, response] of Object.entries(responses(op))) {
        if (Number(status) < 400) continue;
        const json = response.content?.['application/json'];
        if (!json || !/ErrorEnvelopeDto|ChannelNotFoundError/.test(JSON.stringify(json.schema))) continue;
        const example = json.example as ErrorEnvelopeDto | undefined;
        assert.equal(example?.statusCode, Number(status), `${where} ${status}`);
        assert.ok(source.includes(`'${example.error.code}'`), `${where} ${status}: ${example.error.code} is not a code of the service`);
        shown.set(`${op.operationId} ${status}`, example.error.code);
        checked++;
      }
    }
    assert.ok(checked >= 600, `only ${checked} error responses`);
    const expected: Record<string, string> = {
      'getContactById 401': 'Auth:Unauthorized',
      'getContactById 404': 'Contacts:ContactNotFound',
      'setPropertyValueOnContact 404': 'ContactProperties:PropertyNotFound',
      'createContact 409': 'Contacts:DuplicatePhoneNumber',
      'createContact 413': 'Request:PayloadTooLarge',
      'createContact 415': 'Request:UnsupportedMediaType',
      'sendText 404': 'Channels:ChannelNotFound',
      'sendText 409': 'Idempotency:InFlight',
      'sendText 422': 'Idempotency:KeyReused',
      'sendText 429': 'RateLimit:Exceeded',
      'sendText 503': 'Database:Unavailable',
      'startCampaign 409': 'Campaigns:IllegalTransition',
      'deleteTag 409': 'Tags:TagInUse',
      'createWorkspace 401': 'Admin:Unauthorized',
      'createWorkspace 404': 'Request:NotFound',
      'createServiceAccount 404': 'Workspaces:WorkspaceNotFound',
    };
    for (const [key, code] of Object.entries(expected)) assert.equal(shown.get(key), code, key);
  });
});

/** JSON Schema 2020-12 keywords where a 3.0 schema had its own, anywhere a schema can be. */
function threeZeroKeywords(document: unknown): string[] {
  const found: string[] = [];
  const schemaMaps = new Set(['properties', 'patternProperties', '$defs', 'schemas']);
  const dataKeys = new Set(['example', 'examples', 'default', 'const', 'enum']);
  const visit = (node: unknown, path: string, inSchema: boolean): void => {
    if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${path}/${i}`, inSchema));
    if (!node || typeof node !== 'object') return;
    const object = node as Record<string, unknown>;
    if ('nullable' in object) found.push(`${path}/nullable`);
    for (const bound of ['exclusiveMinimum', 'exclusiveMaximum'])
      if (typeof object[bound] === 'boolean') found.push(`${path}/${bound} (boolean)`);
    if (inSchema && 'example' in object) found.push(`${path}/example`);
    for (const [key, value] of Object.entries(object)) {
      if (dataKeys.has(key) || key.startsWith('x-')) continue;
      if (schemaMaps.has(key) && value && typeof value === 'object' && (inSchema || key === 'schemas')) {
        for (const [name, schema] of Object.entries(value)) visit(schema, `${path}/${key}/${name}`, true);
      } else visit(value, `${path}/${key}`, inSchema || key === 'schema');
    }
  };
  visit(document, '', false);
  return found;
}

describe('The OpenAPI 3.1 document and its webhooks', () => {
  let doc: OpenAPIObject & { webhooks?: Record<string, PathItemObject> };

  before(async () => {
    process.env.JWT_SECRET ??= 'openapi-document-test-'.padEnd(40, 'x');
    doc = buildOpenApiDocument(await createApp({ preview: true }));
  });

  it('is OpenAPI 3.1 with no keyword of 3.0 left (nullable, boolean exclusive bounds, example in a schema)', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    assert.deepEqual(threeZeroKeywords(doc), []);
    // What the conversion made of a few 3.0 spellings the DTOs have.
    const schemas = doc.components!.schemas as Record<string, Record<string, any>>;
    assert.deepEqual(schemas.AiSummaryDto.properties.summary.type, ['string', 'null']);
    assert.deepEqual(schemas.ChannelDto.properties.whatsAppInfo.anyOf, [
      { $ref: '#/components/schemas/WhatsAppInfoDto' },
      { type: 'null' },
    ]);
    assert.deepEqual(schemas.ErrorInfoDto.properties.code.examples, ['Contacts:PropertyRequired']);
    // null matches one branch of a oneOf only.
    assert.deepEqual(
      schemas.SetPropertyValueDto.properties.value.oneOf.map((branch: { type: unknown }) => branch.type),
      [['string', 'null'], 'number'],
    );
  });

  it('lists one webhook per catalog event type, whose body is the schema the catalog serves', () => {
    const catalog = eventTypeCatalog();
    assert.ok(catalog.length >= 12);
    assert.deepEqual(threeZeroKeywords(catalog), [], 'the catalog serves JSON Schema 2020-12 too');
    assert.deepEqual(Object.keys(doc.webhooks ?? {}).sort(), catalog.map((entry) => entry.type).sort());
    const components = doc.components!.schemas as Record<string, unknown>;
    const asDefs = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"#/$defs/')) as Record<string, any>;
    for (const { type, description, schema } of catalog) {
      const operation = doc.webhooks![type].post!;
      const body = (operation.requestBody as RequestBodyObject).content['application/json'].schema as { $ref: string };
      const { $schema, title, $defs, ...payload } = schema as Record<string, any>;
      assert.equal($schema, 'https://json-schema.org/draft/2020-12/schema');
      assert.equal(title, type);
      assert.deepEqual(asDefs(components[body.$ref.split('/').pop()!]), { description, ...payload }, type);
      for (const [name, def] of Object.entries($defs as Record<string, unknown>))
        assert.deepEqual(asDefs(components[name]), def, `${type}: ${name}`);
      assert.ok(Object.keys($defs).length >= 1, type);

      const headers = (operation.parameters as Array<ParameterObject | { $ref: string }>).map((p) =>
        '$ref' in p ? (doc.components!.parameters![p.$ref.split('/').pop()!] as ParameterObject) : p,
      );
      assert.deepEqual(
        headers.map((h) => [h.in, h.name, h.required]),
        ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'webhook-event'].map((name) => ['header', name, true]),
        type,
      );
      assert.deepEqual((headers[3].schema as SchemaObject).enum, [type]);
      assert.deepEqual(Object.keys(operation.responses).sort(), ['2XX', '410']);
    }
    assert.equal(
      (asDefs(components.WhatsAppMessageEvent).properties.data as { $ref: string }).$ref,
      '#/$defs/WhatsAppMessageWebhook',
      'named after the event type',
    );
  });
});

describe('JSON Schema 2020-12 keywords of a 3.0 schema', () => {
  it('turns exclusive bounds into numbers and example into examples, in schemas only', () => {
    const document = {
      components: {
        schemas: {
          Amount: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false, example: 5 },
          Holder: {
            type: 'object',
            properties: { example: { type: 'string', example: 'x' }, list: { type: 'array', items: { example: 1 } } },
          },
        },
      },
      paths: { '/a': { get: { parameters: [{ name: 'q', in: 'query', example: 'kept', schema: { type: 'string', example: 'q' } }] } } },
    };
    useJsonSchema2020Keywords(document);
    assert.deepEqual(document.components.schemas.Amount, { type: 'number', exclusiveMinimum: 0, maximum: 10, examples: [5] });
    assert.deepEqual(document.components.schemas.Holder.properties.example, { type: 'string', examples: ['x'] });
    assert.deepEqual(document.components.schemas.Holder.properties.list.items, { examples: [1] });
    assert.deepEqual(document.paths['/a'].get.parameters[0], {
      name: 'q',
      in: 'query',
      example: 'kept',
      schema: { type: 'string', examples: ['q'] },
    });
    assert.deepEqual(threeZeroKeywords(document), []);
  });
});

describe('The error codes the document lists', () => {
  it('are every code written in the source, ParseIdPipe refusals included, and Service Login’s OAuth codes', async () => {
    process.env.JWT_SECRET ??= 'openapi-document-test-'.padEnd(40, 'x');
    const doc = buildOpenApiDocument(await createApp({ preview: true }));
    const scanned = scanErrorCodes();
    assert.deepEqual([...ERROR_CODES], scanned, 'src/common/errors/error-codes.ts is stale: npm run build && npm run openapi');
    for (const code of ['Channels:ChannelNotFound', 'Contacts:PropertyRequired', 'Request:ValidationFailed', 'Channels:Channel:NotFound'])
      assert.ok(scanned.includes(code), code);
    assert.ok(!scanned.includes('Channels:Channel'), 'a ParseIdPipe resource is not a code');
    const schemas = doc.components!.schemas as Record<string, SchemaObject>;
    assert.deepEqual((schemas.ErrorInfoDto.properties!.code as SchemaObject).enum, [
      'invalid_request',
      'invalid_client',
      'unsupported_grant_type',
      'invalid_scope',
      ...scanned,
    ]);
    assert.deepEqual((schemas.OAuthErrorDto.properties!.error as SchemaObject).enum, [
      'invalid_request',
      'invalid_client',
      'unsupported_grant_type',
      'invalid_scope',
    ]);
  });
});
