import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const AUDIO = 'https://media.example.com/question.wav';
const VOICEMAIL = 'https://media.example.com/voicemail.wav';
const NO_ID = '0190f0f0-0000-7000-8000-000000000000';

type Payload = Record<string, any>;

describeWithApp(
  'Answering-machine detection with the sandbox voice provider (API.md §14)',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
    },
  },
  (fx) => {
    let seq = 0;
    const nextNumber = () => `96650${String(1_000_000 + ++seq * 7919).slice(-7)}`;

    /** A sandbox voice channel that presses 1 at every question, with its own Call Webhook path. */
    const voiceChannel = async () => {
      const path = `/calls/${++seq}`;
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        type: 1,
        whatsApp: undefined,
        voice: { provider: 'sandbox', fromNumber: '+14155550100', sandbox: { ringMs: 0, talkMs: 0, pressDigits: ['1'] } },
        postCallWebhookUrl: fx.receiver.url(path),
      });
      return { id: channel.id as string, callWebhookPath: path };
    };

    const markMachines = (channelId: string, numbers: string[]) =>
      fx.t.admin.put(`/admin/v1/channels/${channelId}/sandbox/machines`, { numbers });

    const request = (channelId: string, destinationNumber: string, extra: Record<string, unknown> = {}) => ({
      channelId,
      destinationNumber,
      audioFileUrl: AUDIO,
      options: [{ digit: '1', description: 'Confirm' }],
      webhookUrl: fx.receiver.url(`/ivr/${++seq}`),
      maxAudioRetries: 0,
      ...extra,
    });

    /** Places a call and waits for its end, its signed outcome webhook and its Call Webhook. */
    const callThrough = async (channel: { id: string; callWebhookPath: string }, number: string, extra: Record<string, unknown> = {}) => {
      const body = request(channel.id, number, extra);
      const created = await fx.a.api.post('/v1/outbound-ivr', body);
      assert.equal(created.status, 200, created.text);
      const record = await waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`);
          return res.body.status >= 4 ? (res.body as Payload) : null;
        },
        10_000,
        'the call to finish',
      );
      const path = new URL(body.webhookUrl).pathname;
      const outcome = verifySignature(
        await waitFor(async () => fx.receiver.at(path)[0], 10_000, 'the outcome webhook'),
        fx.a.webhookSecret,
      ) as Payload;
      const callHook = await waitFor(
        async () => fx.receiver.at(channel.callWebhookPath).find((r) => r.body.includes(record.callId)),
        10_000,
        'the Call Webhook',
      );
      const call = verifySignature(callHook, fx.a.webhookSecret) as Payload;
      return { record, outcome, call };
    };

    /** The body of the call's event in the contact's timeline. */
    const timelineBody = async (channelId: string, number: string, callId: string) => {
      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${number}` })).body
        .conversation;
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      assert.equal(timeline.status, 200, timeline.text);
      const event = (timeline.body.items as Payload[]).find((e) => e.sourceType === 1 && e.attachment?.callId === callId);
      assert.ok(event, JSON.stringify(timeline.body.items));
      return event.body as string;
    };

    it('refuses a bad machineDetection and LeaveMessage without exactly one voicemail prompt, with a 400 naming the field', async () => {
      const channel = await voiceChannel();
      const number = nextNumber();
      const cases: Array<[string, Record<string, unknown>, string, string]> = [
        ['an unknown mode', { machineDetection: 'Detect' }, 'machineDetection', 'Request:ValidationFailed'],
        ['a lower-case mode', { machineDetection: 'hangup' }, 'machineDetection', 'Request:ValidationFailed'],
        ['a number as mode', { machineDetection: 1 }, 'machineDetection', 'Request:ValidationFailed'],
        ['null as mode', { machineDetection: null }, 'machineDetection', 'Request:ValidationFailed'],
        ['LeaveMessage without a voicemail', { machineDetection: 'LeaveMessage' }, 'voicemailAudioFileUrl', 'OutboundIvr:InvalidRequest'],
        [
          'LeaveMessage with both voicemails',
          { machineDetection: 'LeaveMessage', voicemailAudioFileUrl: VOICEMAIL, voicemailTtsText: 'Call us back.' },
          'voicemailTtsText',
          'OutboundIvr:InvalidRequest',
        ],
        [
          'a voicemail without LeaveMessage',
          { machineDetection: 'Hangup', voicemailTtsText: 'Call us back.' },
          'voicemailTtsText',
          'OutboundIvr:InvalidRequest',
        ],
        ['a voicemail with the default Off', { voicemailAudioFileUrl: VOICEMAIL }, 'voicemailAudioFileUrl', 'OutboundIvr:InvalidRequest'],
        [
          'a voicemail URL that is not http',
          { machineDetection: 'LeaveMessage', voicemailAudioFileUrl: 'ftp://x.example.com/a.wav' },
          'voicemailAudioFileUrl',
          'Request:ValidationFailed',
        ],
        [
          'a blank voicemail text',
          { machineDetection: 'LeaveMessage', voicemailTtsText: '  ' },
          'voicemailTtsText',
          'Request:ValidationFailed',
        ],
      ];
      for (const [what, change, member, code] of cases) {
        const res = await fx.a.api.post('/v1/outbound-ivr', { ...request(channel.id, number), ...change });
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        assert.equal(res.body.error.code, code, `${what}: ${res.text}`);
        const members = (res.body.error.validationErrors as Array<{ members: string[] }>).flatMap((e) => e.members);
        assert.ok(members.includes(member), `${what}: ${JSON.stringify(members)}`);
      }
      const list = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=1000');
      assert.equal(list.body.items.filter((r: Payload) => r.channelId === channel.id).length, 0, 'nothing was written');
    });

    it('PUT sandbox/machines: numbers normalised and deduplicated; 400 for a bad number or a channel without the sandbox voice; 404; admin key only', async () => {
      const channel = await voiceChannel();
      const set = await markMachines(channel.id, ['966 50 123 4567', '+966501234567', '00966501234568']);
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body, { channelId: channel.id, numbers: ['+966501234567', '+966501234568'] });

      const bad = await markMachines(channel.id, ['12']);
      assert.equal(bad.status, 400, bad.text);
      assert.equal(bad.body.error.code, 'Request:ValidationFailed');
      assert.equal((await fx.t.admin.put(`/admin/v1/channels/${channel.id}/sandbox/machines`, {})).status, 400);
      assert.equal((await markMachines(NO_ID, ['966501234567'])).status, 404);
      assert.equal((await fx.a.api.put(`/admin/v1/channels/${channel.id}/sandbox/machines`, { numbers: [] })).status, 401);

      const twilio = await createChannel(fx.t, fx.a.workspaceId, {
        type: 1,
        whatsApp: undefined,
        voice: { provider: 'twilio', accountSid: 'AC0123', authToken: 'secret-token', fromNumber: '+14155550100' },
      });
      const notSandbox = await markMachines(twilio.id, ['966501234567']);
      assert.equal(notSandbox.status, 400, notSandbox.text);
      assert.equal(notSandbox.body.error.code, 'Channels:InvalidConfiguration');
    });

    it('Hangup: a marked number is a machine at the answer, the IVR never runs, and the call ends Completed, AnsweringMachine; a person is asked as before', async () => {
      const channel = await voiceChannel();
      const [machine, person] = [nextNumber(), nextNumber()];
      assert.equal((await markMachines(channel.id, [machine])).status, 200);

      const byMachine = await callThrough(channel, machine, { machineDetection: 'Hangup' });
      assert.equal(byMachine.record.status, 4);
      assert.equal(byMachine.record.result, 8);
      assert.equal(byMachine.record.answeredBy, 'machine_start');
      assert.equal(byMachine.record.machineDetection, 'Hangup');
      assert.equal(byMachine.record.pressedDigit, null, 'the question was not asked');
      assert.deepEqual(byMachine.record.answers, []);
      assert.equal(byMachine.record.errorMessage, null);
      assert.equal(byMachine.outcome.result, 8);
      assert.equal(byMachine.outcome.answeredBy, 'machine_start');
      assert.equal(byMachine.call.status, 1);
      assert.equal(byMachine.call.answeredBy, 'machine_start');
      assert.match(
        await timelineBody(channel.id, machine, byMachine.record.callId),
        /^Outbound IVR call: Completed, AnsweringMachine \(machine_start\)$/,
      );

      const byPerson = await callThrough(channel, person, { machineDetection: 'Hangup' });
      assert.equal(byPerson.record.result, 1);
      assert.equal(byPerson.record.pressedDigit, '1');
      assert.equal(byPerson.record.answeredBy, 'human');
      assert.equal(byPerson.outcome.answeredBy, 'human');
      assert.equal(byPerson.call.answeredBy, 'human');
    });

    it('LeaveMessage: the machine hears the voicemail after its beep (speech synthesized), then the call hangs up', async () => {
      const channel = await voiceChannel();
      const [spoken, recorded] = [nextNumber(), nextNumber()];
      assert.equal((await markMachines(channel.id, [spoken, recorded])).status, 200);

      const tts = await callThrough(channel, spoken, {
        machineDetection: 'LeaveMessage',
        voicemailTtsText: 'Your order is ready; call us back.',
      });
      assert.equal(tts.record.status, 4);
      assert.equal(tts.record.result, 8);
      assert.equal(tts.record.answeredBy, 'machine_end_beep');
      assert.equal(tts.record.voicemailTtsText, 'Your order is ready; call us back.');
      assert.equal(tts.outcome.answeredBy, 'machine_end_beep');
      assert.equal(tts.call.answeredBy, 'machine_end_beep');
      const said = await timelineBody(channel.id, spoken, tts.record.callId);
      const voicemail = /, voicemail (\S+)$/.exec(said)?.[1];
      assert.ok(voicemail, said);
      assert.match(said, /^Outbound IVR call: Completed, AnsweringMachine \(machine_end_beep\), voicemail /);
      assert.match(voicemail, /\/media\/[^/]+\/speech-female\.wav$/);
      const wav = await fetch(`${fx.t.baseUrl}${new URL(voicemail).pathname}`);
      assert.equal(wav.status, 200, 'the synthesized voicemail is served');

      const file = await callThrough(channel, recorded, { machineDetection: 'LeaveMessage', voicemailAudioFileUrl: VOICEMAIL });
      assert.equal(file.record.result, 8);
      assert.equal(file.record.voicemailAudioFileUrl, VOICEMAIL);
      assert.equal(
        await timelineBody(channel.id, recorded, file.record.callId),
        `Outbound IVR call: Completed, AnsweringMachine (machine_end_beep), voicemail ${VOICEMAIL}`,
      );
    });

    it('Off (the default): no detection, so a machine is asked the question like anyone, presses nothing and the call ends NoInput, answeredBy null', async () => {
      const channel = await voiceChannel();
      const machine = nextNumber();
      assert.equal((await markMachines(channel.id, [machine])).status, 200);
      const { record, outcome, call } = await callThrough(channel, machine);
      assert.equal(record.machineDetection, 'Off');
      assert.equal(record.status, 4);
      assert.equal(record.result, 2);
      assert.equal(record.answeredBy, null);
      assert.equal(outcome.answeredBy, null);
      assert.equal(call.answeredBy, null);
    });

    it("flows: a flow's machineDetection applies to its calls unless the request sets its own; unsound settings are 400s", async () => {
      const flowBody = (extra: Record<string, unknown>) => ({
        name: `Reminder ${++seq}`,
        startStepId: 'ask',
        steps: [
          {
            id: 'ask',
            type: 'Question',
            props: { audioFileUrl: AUDIO, options: [{ digit: '1', description: 'Yes' }], maxAudioRetries: 0 },
          },
        ],
        ...extra,
      });
      const refused: Array<[string, Record<string, unknown>, string, string]> = [
        ['an unknown mode', { machineDetection: 'Beep' }, 'machineDetection', 'Request:ValidationFailed'],
        ['LeaveMessage without a voicemail', { machineDetection: 'LeaveMessage' }, 'voicemailTtsText', 'OutboundIvr:InvalidFlow'],
        [
          'a voicemail with Hangup',
          { machineDetection: 'Hangup', voicemailAudioFileUrl: VOICEMAIL },
          'voicemailAudioFileUrl',
          'OutboundIvr:InvalidFlow',
        ],
      ];
      for (const [what, extra, member, code] of refused) {
        const res = await fx.a.api.post('/v1/outbound-ivr-flows', flowBody(extra));
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        assert.equal(res.body.error.code, code, `${what}: ${res.text}`);
        const members = (res.body.error.validationErrors as Array<{ members: string[] }>).flatMap((e) => e.members);
        assert.ok(members.includes(member), `${what}: ${JSON.stringify(members)}`);
      }

      const saved = await fx.a.api.post(
        '/v1/outbound-ivr-flows',
        flowBody({ machineDetection: 'LeaveMessage', voicemailAudioFileUrl: VOICEMAIL }),
      );
      assert.equal(saved.status, 200, saved.text);
      assert.deepEqual(
        [saved.body.machineDetection, saved.body.voicemailAudioFileUrl, saved.body.voicemailTtsText],
        ['LeaveMessage', VOICEMAIL, null],
      );

      const channel = await voiceChannel();
      const [machine, other] = [nextNumber(), nextNumber()];
      assert.equal((await markMachines(channel.id, [machine, other])).status, 200);
      const flowCall = { audioFileUrl: undefined, options: undefined, flowId: saved.body.id };
      const inherited = await callThrough(channel, machine, flowCall);
      assert.deepEqual(
        [inherited.record.machineDetection, inherited.record.voicemailAudioFileUrl, inherited.record.result, inherited.record.answeredBy],
        ['LeaveMessage', VOICEMAIL, 8, 'machine_end_beep'],
      );
      assert.equal(
        await timelineBody(channel.id, machine, inherited.record.callId),
        `Outbound IVR call: Completed, AnsweringMachine (machine_end_beep), voicemail ${VOICEMAIL}`,
      );

      const overridden = await callThrough(channel, other, { ...flowCall, machineDetection: 'Off' });
      assert.deepEqual([overridden.record.machineDetection, overridden.record.result, overridden.record.answeredBy], ['Off', 2, null]);
    });
  },
);
