import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import 'reflect-metadata';
import type { OpenAPIObject, OperationObject, ParameterObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { createApp } from '../../src/create-app.js';
import { buildOpenApiDocument } from '../../src/openapi/openapi-document.js';
import { forEachOperation, resolveSchema } from '../../src/openapi/document-walk.js';
import { operationIdOf } from '../../src/openapi/openapi-conventions.js';
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
        .filter((p) => p.in === 'path')
        .map((p) => ({ where, p })),
    );
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
