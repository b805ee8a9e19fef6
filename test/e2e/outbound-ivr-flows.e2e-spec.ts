import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { OutboundIvrFlowsService } from '../../src/outbound-ivr-flows/outbound-ivr-flows.service.js';
import { describeWithApp } from '../support/describe-with-app.js';

// API.md §1: flows are not the IVR request record, so they take the `Z` form.
const UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE = '/v1/outbound-ivr-flows';

interface FlowBody {
  name: string;
  description?: string | null;
  startStepId: string;
  steps: Array<{ id: string; type: string; props: Record<string, any> }>;
}

/** Welcome → question (1 thanks, 2 back to the question) → thanks → goodbye. */
function surveyFlow(name = 'Survey'): FlowBody {
  return {
    name,
    description: 'Asks one question',
    startStepId: 'welcome',
    steps: [
      { id: 'welcome', type: 'Play', props: { audioFileUrl: 'https://media.example.com/welcome.wav', nextStepId: 'ask-size' } },
      {
        id: 'ask-size',
        type: 'Question',
        props: {
          ttsText: 'Press 1 for small, 2 to hear this again.',
          options: [
            { digit: '1', description: 'Small', nextStepId: 'thanks', responseMessageFileUrl: 'https://media.example.com/ok.wav' },
            { digit: '2', description: 'Repeat', nextStepId: 'ask-size' },
          ],
          noInputStepId: 'bye',
        },
      },
      { id: 'thanks', type: 'Play', props: { ttsText: 'Thank you.', ttsVoice: 'Male', nextStepId: 'bye' } },
      { id: 'bye', type: 'Hangup', props: {} },
    ],
  };
}

/** The survey with `edit` applied to a deep copy. */
function surveyWith(edit: (flow: FlowBody) => void): FlowBody {
  const flow = structuredClone(surveyFlow());
  edit(flow);
  return flow;
}

describeWithApp('Outbound IVR Flows', { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' } }, (fx) => {
  let service: OutboundIvrFlowsService;

  before(async () => {
    service = fx.t.app.get(OutboundIvrFlowsService);
  });

  it('creates a flow at version 1 with the defaults applied, and gets it back', async () => {
    const created = await fx.a.api.post(BASE, surveyFlow());
    assert.equal(created.status, 200, created.text);
    const flow = created.body;
    assert.deepEqual(Object.keys(flow).sort(), [
      'creationTime',
      'description',
      'id',
      'lastModificationTime',
      'machineDetection',
      'name',
      'record',
      'startStepId',
      'steps',
      'version',
      'voicemailAudioFileUrl',
      'voicemailTtsText',
      'workspaceId',
    ]);
    assert.deepEqual([flow.machineDetection, flow.voicemailAudioFileUrl, flow.voicemailTtsText], ['Off', null, null]);
    assert.equal(flow.version, 1);
    assert.equal(flow.workspaceId, fx.a.workspaceId);
    assert.equal(flow.name, 'Survey');
    assert.equal(flow.description, 'Asks one question');
    assert.equal(flow.startStepId, 'welcome');
    assert.match(flow.creationTime, UTC);
    assert.match(flow.lastModificationTime, UTC);
    assert.deepEqual(flow.steps, [
      {
        id: 'welcome',
        type: 'Play',
        props: { audioFileUrl: 'https://media.example.com/welcome.wav', ttsText: null, ttsVoice: 1, nextStepId: 'ask-size' },
      },
      {
        id: 'ask-size',
        type: 'Question',
        props: {
          audioFileUrl: null,
          ttsText: 'Press 1 for small, 2 to hear this again.',
          ttsVoice: 1,
          options: [
            { digit: '1', description: 'Small', nextStepId: 'thanks', responseMessageFileUrl: 'https://media.example.com/ok.wav' },
            { digit: '2', description: 'Repeat', nextStepId: 'ask-size', responseMessageFileUrl: null },
          ],
          maxAudioRetries: 2,
          inputTimeoutMs: 6000,
          noInputStepId: 'bye',
          invalidInputStepId: null,
        },
      },
      { id: 'thanks', type: 'Play', props: { audioFileUrl: null, ttsText: 'Thank you.', ttsVoice: 2, nextStepId: 'bye' } },
      { id: 'bye', type: 'Hangup', props: { audioFileUrl: null, ttsText: null, ttsVoice: 1 } },
    ]);
    const fetched = await fx.a.api.get(`${BASE}/${flow.id}`);
    assert.equal(fetched.status, 200, fetched.text);
    assert.deepEqual(fetched.body, flow);
    const current = await service.getCurrentVersion(fx.a.workspaceId, flow.id);
    assert.deepEqual(current, {
      flowId: flow.id,
      version: 1,
      definition: {
        startStepId: 'welcome',
        steps: flow.steps,
        machineDetection: 'Off',
        voicemailAudioFileUrl: null,
        voicemailTtsText: null,
        record: null,
      },
    });
  });

  it('lists the workspace flows newest first, with paging and a Name filter', async () => {
    const names = ['Billing menu', 'Delivery check', 'Billing follow-up'];
    for (const name of names) assert.equal((await fx.a.api.post(BASE, surveyFlow(name))).status, 200);
    const all = await fx.a.api.get(`${BASE}?MaxResultCount=100`);
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.totalCount, 4);
    assert.deepEqual(
      all.body.items.map((f: { name: string }) => f.name),
      ['Billing follow-up', 'Delivery check', 'Billing menu', 'Survey'],
    );
    assert.equal(all.body.items[0].steps.length, 4, 'items carry their current steps');
    const page = await fx.a.api.get(`${BASE}?SkipCount=1&MaxResultCount=2&Sorting=Name ASC`);
    assert.deepEqual(
      page.body.items.map((f: { name: string }) => f.name),
      ['Billing menu', 'Delivery check'],
    );
    assert.equal(page.body.totalCount, 4);
    const filtered = await fx.a.api.get(`${BASE}?Name=BILLING`);
    assert.equal(filtered.body.totalCount, 2);
    assert.deepEqual(filtered.body.items.map((f: { name: string }) => f.name).sort(), ['Billing follow-up', 'Billing menu']);
    assert.deepEqual((await fx.a.api.get(`${BASE}?Name=100%`)).body, { totalCount: 0, items: [] }, 'LIKE wildcards are literal');
    assert.equal((await fx.a.api.get(`${BASE}?Sorting=Steps ASC`)).status, 400);
    assert.equal((await fx.a.api.get(`${BASE}?MaxResultCount=1001`)).status, 400);
  });

  it('updates as a new version; the old version stays readable for the calls running it', async () => {
    const flow = (await fx.a.api.post(BASE, surveyFlow('Versioned'))).body;
    const edited = surveyWith((f) => {
      f.name = 'Versioned v2';
      f.description = null;
      f.steps[2].props.ttsText = 'Thanks a lot.';
    });
    const updated = await fx.a.api.put(`${BASE}/${flow.id}`, edited);
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.version, 2);
    assert.equal(updated.body.name, 'Versioned v2');
    assert.equal(updated.body.description, null);
    assert.equal(updated.body.steps[2].props.ttsText, 'Thanks a lot.');
    assert.equal(updated.body.creationTime, flow.creationTime);
    assert.ok(updated.body.lastModificationTime > flow.lastModificationTime, 'lastModificationTime moves on');
    assert.equal((await fx.a.api.get(`${BASE}/${flow.id}`)).body.version, 2);

    const first = await service.getVersion(fx.a.workspaceId, flow.id, 1);
    assert.equal(first.version, 1);
    assert.equal((first.definition.steps[2].props as { ttsText: string }).ttsText, 'Thank you.');
    assert.equal((await service.getCurrentVersion(fx.a.workspaceId, flow.id)).version, 2);

    const concurrent = await Promise.all([fx.a.api.put(`${BASE}/${flow.id}`, edited), fx.a.api.put(`${BASE}/${flow.id}`, edited)]);
    assert.deepEqual(concurrent.map((r) => r.body.version).sort(), [3, 4], 'concurrent updates each get their own version');
    await assert.rejects(service.getVersion(fx.a.workspaceId, flow.id, 5), { code: 'OutboundIvr:FlowNotFound' });
    await assert.rejects(service.getVersion(fx.b.workspaceId, flow.id, 1), { code: 'OutboundIvr:FlowNotFound' });
  });

  it('deletes a flow: gone from the API, its versions kept for running calls', async () => {
    const flow = (await fx.a.api.post(BASE, surveyFlow('Doomed'))).body;
    await fx.a.api.put(`${BASE}/${flow.id}`, surveyFlow('Doomed'));
    const deleted = await fx.a.api.delete(`${BASE}/${flow.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    const gone = await fx.a.api.get(`${BASE}/${flow.id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'OutboundIvr:FlowNotFound');
    assert.equal((await fx.a.api.put(`${BASE}/${flow.id}`, surveyFlow())).status, 404);
    assert.equal((await fx.a.api.delete(`${BASE}/${flow.id}`)).status, 404, 'a second delete finds nothing');
    const listed = await fx.a.api.get(`${BASE}?Name=Doomed`);
    assert.equal(listed.body.totalCount, 0);
    await assert.rejects(service.getCurrentVersion(fx.a.workspaceId, flow.id), { code: 'OutboundIvr:FlowNotFound', status: 404 });
    assert.equal((await service.getVersion(fx.a.workspaceId, flow.id, 1)).definition.startStepId, 'welcome');
    assert.equal((await service.getVersion(fx.a.workspaceId, flow.id, 2)).version, 2);
  });

  it('refuses flows that are not sound graphs, naming the step, and writes nothing', async () => {
    const before = (await fx.a.api.get(BASE)).body.totalCount;
    const cases: Array<[string, FlowBody, string, string[]]> = [
      [
        'duplicate id',
        surveyWith((f) => f.steps.push({ id: 'thanks', type: 'Hangup', props: {} })),
        "Step 'thanks' is defined more than once.",
        ['steps[4].id'],
      ],
      ['dangling startStepId', surveyWith((f) => (f.startStepId = 'hello')), "startStepId 'hello' does not exist.", ['startStepId']],
      [
        'dangling nextStepId',
        surveyWith((f) => (f.steps[0].props.nextStepId = 'pay')),
        "Step 'welcome': nextStepId 'pay' does not exist.",
        ['steps[0].props.nextStepId'],
      ],
      [
        'dangling option nextStepId',
        surveyWith((f) => (f.steps[1].props.options[1].nextStepId = 'pay')),
        "Step 'ask-size': option '2' nextStepId 'pay' does not exist.",
        ['steps[1].props.options[1].nextStepId'],
      ],
      [
        'dangling noInputStepId',
        surveyWith((f) => (f.steps[1].props.noInputStepId = 'silence')),
        "Step 'ask-size': noInputStepId 'silence' does not exist.",
        ['steps[1].props.noInputStepId'],
      ],
      [
        'dangling invalidInputStepId',
        surveyWith((f) => (f.steps[1].props.invalidInputStepId = 'oops')),
        "Step 'ask-size': invalidInputStepId 'oops' does not exist.",
        ['steps[1].props.invalidInputStepId'],
      ],
      [
        'unreachable step',
        surveyWith((f) => f.steps.push({ id: 'orphan', type: 'Play', props: { ttsText: 'Nobody hears this', nextStepId: 'bye' } })),
        "Step 'orphan' cannot be reached from startStepId 'welcome'.",
        ['steps[4].id'],
      ],
      [
        'both audio and tts',
        surveyWith((f) => (f.steps[1].props.audioFileUrl = 'https://media.example.com/q.wav')),
        "Step 'ask-size': give audioFileUrl or ttsText, not both.",
        ['steps[1].props.audioFileUrl', 'steps[1].props.ttsText'],
      ],
      [
        'neither audio nor tts',
        surveyWith((f) => delete f.steps[2].props.ttsText),
        "Step 'thanks': a Play step needs audioFileUrl or ttsText.",
        ['steps[2].props.audioFileUrl', 'steps[2].props.ttsText'],
      ],
    ];
    for (const [what, body, message, members] of cases) {
      const res = await fx.a.api.post(BASE, body);
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.equal(res.body.error.code, 'OutboundIvr:InvalidFlow', what);
      assert.equal(res.body.message, message, what);
      assert.deepEqual(res.body.error.validationErrors, [{ message, members }], what);
    }
    assert.equal((await fx.a.api.get(BASE)).body.totalCount, before, 'nothing written');
  });

  it('refuses props that do not fit the step type and out-of-range values', async () => {
    const flow = (await fx.a.api.post(BASE, surveyFlow('Untouched'))).body;
    const question = (edit: Record<string, unknown>) => surveyWith((f) => Object.assign(f.steps[1].props, edit));
    const cases: Array<[string, FlowBody, string]> = [
      [
        'Question props on a Play step',
        surveyWith((f) => Object.assign(f.steps[0].props, { options: [{ digit: '1', description: 'x' }], maxAudioRetries: 1 })),
        'steps[0].props',
      ],
      ['Play props on a Hangup step', surveyWith((f) => Object.assign(f.steps[3].props, { nextStepId: 'welcome' })), 'steps[3].props'],
      ['Question without options', surveyWith((f) => delete f.steps[1].props.options), 'steps[1].props.options'],
      ['no options', question({ options: [] }), 'steps[1].props.options'],
      [
        '13 options',
        question({
          options: '0123456789*#'
            .split('')
            .map((digit) => ({ digit, description: digit }))
            .concat({ digit: '1', description: 'x' }),
        }),
        'steps[1].props.options',
      ],
      [
        'duplicate digits',
        question({
          options: [
            { digit: '1', description: 'a' },
            { digit: '1', description: 'b' },
          ],
        }),
        'steps[1].props.options',
      ],
      ['bad digit', question({ options: [{ digit: 'A', description: 'a' }] }), 'steps[1].props.options[0].digit'],
      ['retries above 5', question({ maxAudioRetries: 6 }), 'steps[1].props.maxAudioRetries'],
      ['negative retries', question({ maxAudioRetries: -1 }), 'steps[1].props.maxAudioRetries'],
      ['timeout below 1000', question({ inputTimeoutMs: 999 }), 'steps[1].props.inputTimeoutMs'],
      ['timeout above 30000', question({ inputTimeoutMs: 30001 }), 'steps[1].props.inputTimeoutMs'],
      ['ttsText over 5000', question({ ttsText: 'x'.repeat(5001) }), 'steps[1].props.ttsText'],
      ['relative audio URL', surveyWith((f) => (f.steps[0].props.audioFileUrl = '/welcome.wav')), 'steps[0].props.audioFileUrl'],
      ['unknown voice', surveyWith((f) => (f.steps[2].props.ttsVoice = 'Robot')), 'steps[2].props.ttsVoice'],
      ['unknown type', surveyWith((f) => (f.steps[3].type = 'Transfer')), 'steps[3].type'],
      ['bad step id', surveyWith((f) => (f.steps[3].id = 'good bye')), 'steps[3].id'],
      ['step id over 64', surveyWith((f) => (f.steps[3].id = 'x'.repeat(65))), 'steps[3].id'],
      ['no props', surveyWith((f) => delete (f.steps[3] as Partial<FlowBody['steps'][number]>).props), 'steps[3].props'],
      ['no steps', surveyWith((f) => (f.steps = [])), 'steps'],
      ['no name', surveyWith((f) => (f.name = '')), 'name'],
      [
        '101 steps',
        surveyWith((f) => {
          for (let i = 0; i < 97; i++) f.steps.push({ id: `s${i}`, type: 'Hangup', props: {} });
        }),
        'steps',
      ],
    ];
    for (const [what, body, member] of cases) {
      for (const res of [await fx.a.api.post(BASE, body), await fx.a.api.put(`${BASE}/${flow.id}`, body)]) {
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        const members = res.body.error.validationErrors.flatMap((e: { members: string[] }) => e.members);
        assert.ok(members.includes(member), `${what}: ${JSON.stringify(members)}`);
      }
    }
    const misplaced = await fx.a.api.post(BASE, cases[0][1]);
    assert.equal(misplaced.body.message, "Step 'welcome': a Play step does not take options, maxAudioRetries.");
    assert.equal((await fx.a.api.get(`${BASE}/${flow.id}`)).body.version, 1, 'no failed update wrote a version');
  });

  it('binds PascalCase and any-case property names at every level, and step types in any case', async () => {
    const res = await fx.a.api.post(BASE, {
      Name: 'Pascal',
      StartStepId: 'ask',
      Steps: [
        {
          Id: 'ask',
          Type: 'question',
          Props: {
            TtsText: 'Press 1',
            TTSVOICE: 'male',
            Options: [{ Digit: '1', Description: 'Yes', NextStepId: 'done', ResponseMessageFileUrl: 'https://media.example.com/y.wav' }],
            MaxAudioRetries: 0,
            InputTimeoutMs: 1000,
            NoInputStepId: 'done',
            InvalidInputStepId: 'ask',
          },
        },
        { ID: 'done', TYPE: 'HANGUP', PROPS: { AudioFileUrl: 'https://media.example.com/bye.wav' } },
      ],
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'Pascal');
    assert.deepEqual(res.body.steps, [
      {
        id: 'ask',
        type: 'Question',
        props: {
          audioFileUrl: null,
          ttsText: 'Press 1',
          ttsVoice: 2,
          options: [{ digit: '1', description: 'Yes', nextStepId: 'done', responseMessageFileUrl: 'https://media.example.com/y.wav' }],
          maxAudioRetries: 0,
          inputTimeoutMs: 1000,
          noInputStepId: 'done',
          invalidInputStepId: 'ask',
        },
      },
      { id: 'done', type: 'Hangup', props: { audioFileUrl: 'https://media.example.com/bye.wav', ttsText: null, ttsVoice: 1 } },
    ]);
  });

  it('returns the first response again for a repeated Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': 'flow-create-1' };
    const first = await fx.a.api.post(BASE, surveyFlow('Once'), headers);
    const second = await fx.a.api.post(BASE, surveyFlow('Once'), headers);
    assert.equal(first.status, 200, first.text);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.id, first.body.id);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal((await fx.a.api.get(`${BASE}?Name=Once`)).body.totalCount, 1);
    assert.equal((await fx.a.api.post(BASE, surveyFlow('Twice'), headers)).status, 422);
  });

  it('keeps workspaces apart: another workspace gets 404s and an empty list', async () => {
    const flow = (await fx.a.api.post(BASE, surveyFlow('Private'))).body;
    for (const res of [
      await fx.b.api.get(`${BASE}/${flow.id}`),
      await fx.b.api.put(`${BASE}/${flow.id}`, surveyFlow('Hijack')),
      await fx.b.api.delete(`${BASE}/${flow.id}`),
    ]) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'OutboundIvr:FlowNotFound');
    }
    assert.deepEqual((await fx.b.api.get(BASE)).body, { totalCount: 0, items: [] });
    await assert.rejects(service.getCurrentVersion(fx.b.workspaceId, flow.id), { code: 'OutboundIvr:FlowNotFound' });
    const after = await fx.a.api.get(`${BASE}/${flow.id}`);
    assert.equal(after.body.name, 'Private');
    assert.equal(after.body.version, 1);
    assert.equal((await fx.a.api.get(`${BASE}/not-a-uuid`)).status, 404);
    await assert.rejects(service.getCurrentVersion(fx.a.workspaceId, 'not-a-uuid'), { code: 'OutboundIvr:FlowNotFound' });
  });

  it('requires a bearer token', async () => {
    assert.equal((await fx.t.http.get(BASE)).status, 401);
    assert.equal((await fx.t.http.post(BASE, surveyFlow())).status, 401);
    assert.equal((await fx.t.http.get(`${BASE}/00000000-0000-7000-8000-000000000000`)).status, 401);
  });
});
