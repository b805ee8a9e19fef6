import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DataSource } from 'typeorm';
import { describeWithApp } from '../support/describe-with-app.js';

type Payload = Record<string, any>;

const SETTINGS = {
  transcription: {
    provider: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:9/v1/',
    model: 'whisper-1',
    apiKeyRef: 'sk-transcribe-secret',
  },
  summary: {
    provider: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:9/v1',
    model: 'gpt-4o-mini',
    apiKeyRef: 'sk-summary-secret',
    prompt: 'Be brief.',
  },
  evaluationCriteria: [{ name: 'Confirmed', description: 'The customer confirmed the order.' }],
};

describeWithApp('Call intelligence settings: PUT/GET /v1/call-intelligence (API.md §16)', {}, (fx) => {
  const put = (api: typeof fx.a.api, body: unknown) => api.request('PUT', '/v1/call-intelligence', { json: body });

  it('defaults to no providers; stores providers and criteria; API keys are write-only', async () => {
    const empty = await fx.b.api.get('/v1/call-intelligence');
    assert.equal(empty.status, 200, empty.text);
    assert.deepEqual(empty.body, {
      transcription: { provider: 'none', baseUrl: null, model: null, apiKeySet: false },
      summary: { provider: 'none', baseUrl: null, model: null, apiKeySet: false, prompt: null },
      evaluationCriteria: [],
    });

    const saved = await put(fx.a.api, SETTINGS);
    assert.equal(saved.status, 200, saved.text);
    const expected = {
      transcription: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1', model: 'whisper-1', apiKeySet: true },
      summary: {
        provider: 'openai-compatible',
        baseUrl: 'http://127.0.0.1:9/v1',
        model: 'gpt-4o-mini',
        apiKeySet: true,
        prompt: 'Be brief.',
      },
      evaluationCriteria: SETTINGS.evaluationCriteria,
    };
    assert.deepEqual(saved.body, expected);
    const read = await fx.a.api.get('/v1/call-intelligence');
    assert.deepEqual(read.body, expected);
    assert.ok(!read.text.includes('sk-'), 'no key in the response');
    // Sealed at rest.
    const [row] = await fx.t.app
      .get(DataSource)
      .query(`SELECT transcription_api_key_sealed AS t FROM call_intelligence_settings WHERE workspace_id = $1`, [fx.a.workspaceId]);
    assert.ok(row.t && !String(row.t).includes('sk-transcribe-secret'));

    // An API key left out stays; null removes it.
    const kept = await put(fx.a.api, {
      ...SETTINGS,
      transcription: { ...SETTINGS.transcription, apiKeyRef: undefined },
      summary: { ...SETTINGS.summary, apiKeyRef: null },
    });
    assert.equal(kept.status, 200, kept.text);
    assert.equal(kept.body.transcription.apiKeySet, true);
    assert.equal(kept.body.summary.apiKeySet, false);

    // Another workspace sees none of it.
    assert.deepEqual((await fx.b.api.get('/v1/call-intelligence')).body, empty.body);
  });

  it('rejects bad input with a 400 naming the field and changes nothing', async () => {
    await put(fx.a.api, SETTINGS);
    const before = (await fx.a.api.get('/v1/call-intelligence')).body as Payload;
    const cases: Array<[unknown, string]> = [
      [{ ...SETTINGS, transcription: { provider: 'whisper' } }, 'transcription.provider'],
      [{ ...SETTINGS, transcription: { provider: 'openai-compatible', model: 'whisper-1' } }, 'transcription.baseUrl'],
      [{ ...SETTINGS, summary: { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:9/v1' } }, 'summary.model'],
      [{ ...SETTINGS, transcription: { ...SETTINGS.transcription, baseUrl: 'ftp://x' } }, 'transcription.baseUrl'],
      [{ ...SETTINGS, summary: undefined }, 'summary'],
      [{ ...SETTINGS, evaluationCriteria: [{ name: '', description: 'x' }] }, 'evaluationCriteria[0].name'],
      [
        {
          ...SETTINGS,
          evaluationCriteria: [
            { name: 'A', description: 'x' },
            { name: 'a', description: 'y' },
          ],
        },
        'evaluationCriteria',
      ],
      [{ ...SETTINGS, summary: { provider: 'none' } }, 'summary.provider'],
      // A reference may only name a variable meant for it: never the server's own secrets.
      [{ ...SETTINGS, transcription: { ...SETTINGS.transcription, apiKeyRef: 'env:DATABASE_URL' } }, 'transcription.apiKeyRef'],
      [{ ...SETTINGS, summary: { ...SETTINGS.summary, apiKeyRef: 'env:CALL_INTELLIGENCE_KEY_' } }, 'summary.apiKeyRef'],
      [{ ...SETTINGS, summary: { ...SETTINGS.summary, apiKeyRef: 'env:CALL_INTELLIGENCE_KEY_a' } }, 'summary.apiKeyRef'],
    ];
    for (const [body, member] of cases) {
      const res = await put(fx.a.api, body);
      assert.equal(res.status, 400, `${member}: ${res.text}`);
      assert.ok(res.body.error.code, res.text);
      assert.ok(
        (res.body.error.validationErrors as Payload[]).some((e) => (e.members as string[]).includes(member)),
        `${member}: ${res.text}`,
      );
    }
    assert.deepEqual((await fx.a.api.get('/v1/call-intelligence')).body, before);
  });
});
