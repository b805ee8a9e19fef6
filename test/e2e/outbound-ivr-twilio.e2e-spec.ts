import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';
import { CallSweeper } from '../../src/outbound-ivr/call-sweeper.service.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { appWithFakeTwilio, TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN } from '../support/twilio-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature } from '../support/webhook-receiver.js';

const AUTH_TOKEN = TWILIO_AUTH_TOKEN;
const ACCOUNT_SID = TWILIO_ACCOUNT_SID;
/** Twilio calls the app back at its own address, chosen before it boots. */
const twilioApp = appWithFakeTwilio({ INBOUND_CALL_GREETING: 'Thanks for calling Acme.' });

describeWithApp('Outbound IVR through a Twilio-compatible voice API', twilioApp.options, (fx) => {
  let channel: { id: string };
  let hooks = 0;

  const request = (extra: Record<string, unknown> = {}) => ({
    channelId: channel.id,
    destinationNumber: '966501234567',
    audioFileUrl: 'https://media.example.com/question.wav',
    welcomeMessageFileUrl: 'https://media.example.com/welcome.wav',
    failedMessageFileUrl: 'https://media.example.com/failed.wav',
    options: [
      { digit: '1', description: 'Confirm' },
      { digit: '2', description: 'Cancel', responseMessageFileUrl: 'https://media.example.com/cancelled.wav' },
    ],
    webhookUrl: fx.receiver.url(`/ivr/${++hooks}`, 'localhost'),
    ...extra,
  });

  const callThrough = async (extra: Record<string, unknown> = {}) => {
    const body = request(extra);
    const created = await fx.a.api.post('/v1/outbound-ivr', body);
    assert.equal(created.status, 200, created.text);
    const path = new URL(body.webhookUrl).pathname;
    const delivery = await waitFor(async () => fx.receiver.at(path)[0], 10_000, 'the outcome webhook');
    const payload = verifySignature(delivery, fx.a.webhookSecret) as Record<string, unknown>;
    const record = (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body;
    return { record, payload };
  };

  before(async () => {
    channel = await createChannel(fx.t, fx.a.workspaceId, {
      type: 1,
      whatsApp: undefined,
      voice: { provider: 'twilio', accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, fromNumber: '+14155550100' },
      postCallWebhookUrl: fx.receiver.url('/calls'),
    });
  });

  it('places the call with status callbacks, answers with TwiML, and ends DigitPressed with the response file', async () => {
    fx.fake.expectCall({ answer: true, digits: ['2'], durationSeconds: 7 });
    const { record, payload } = await callThrough();
    assert.equal(record.status, 4);
    assert.equal(record.result, 1);
    assert.equal(record.pressedDigit, '2');
    assert.equal(record.callDurationSeconds, 7);
    const call = fx.fake.calls.at(-1)!;
    assert.equal(record.callId, call.sid);
    assert.equal(payload.callId, call.sid);

    const placed = fx.fake.requests.find((r) => r.path.endsWith('/Calls.json'))!;
    assert.equal(placed.path, `/2010-04-01/Accounts/${ACCOUNT_SID}/Calls.json`);
    assert.equal(placed.authorization, `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`);
    assert.equal(placed.form.get('To'), '+966501234567');
    assert.equal(placed.form.get('From'), '+14155550100');
    assert.equal(placed.form.get('Url'), `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${record.id}/answer`);
    assert.equal(placed.form.get('StatusCallback'), `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${record.id}/status`);
    assert.deepEqual(placed.form.getAll('StatusCallbackEvent'), ['initiated', 'ringing', 'answered', 'completed']);
    // machineDetection Off (the default): Twilio is not asked to detect, and nobody is reported.
    assert.equal(placed.form.get('MachineDetection'), null);
    assert.equal(record.machineDetection, 'Off');
    assert.equal(record.answeredBy, null);
    assert.equal(payload.answeredBy, null);

    const [first, last] = [call.twiml[0], call.twiml.at(-1)!];
    assert.match(first, /<Play>https:\/\/media\.example\.com\/welcome\.wav<\/Play><Gather numDigits="1" finishOnKey="" timeout="6"/);
    assert.match(
      first,
      /<Gather[^>]*action="[^"]*\/gather\?turn=0"[^>]*><Play>https:\/\/media\.example\.com\/question\.wav<\/Play><\/Gather>/,
    );
    assert.match(first, /<Redirect method="POST">[^<]*\/gather\?turn=0<\/Redirect>/);
    assert.equal(
      last,
      '<?xml version="1.0" encoding="UTF-8"?><Response><Play>https://media.example.com/cancelled.wav</Play><Hangup/></Response>',
    );

    const callHook = await waitFor(async () => fx.receiver.at('/calls').find((r) => r.body.includes(call.sid)), 10_000, 'the Call Webhook');
    const callPayload = verifySignature(callHook, fx.a.webhookSecret) as Record<string, unknown>;
    assert.equal(callPayload.status, 1);
    assert.equal(callPayload.callLength, '00:00:07');
  });

  it('an invalid digit plays the failed file and asks again; silence after that ends NoInput', async () => {
    fx.fake.expectCall({ answer: true, digits: ['9'] });
    const { record } = await callThrough({ maxAudioRetries: 1 });
    assert.equal(record.status, 4);
    assert.equal(record.result, 2);
    const call = fx.fake.calls.at(-1)!;
    assert.equal(call.twiml.length, 3);
    assert.match(call.twiml[1], /^<\?xml[^>]*><Response><Play>https:\/\/media\.example\.com\/failed\.wav<\/Play><Gather[^>]*turn=1/);
    assert.match(call.twiml[2], /<Hangup\/>/);
  });

  it("'#' and '*' are digits like the others", async () => {
    fx.fake.expectCall({ answer: true, digits: ['#'] });
    const { record } = await callThrough({
      options: [
        { digit: '#', description: 'Hash' },
        { digit: '*', description: 'Star' },
      ],
    });
    assert.equal(record.result, 1);
    assert.equal(record.pressedDigit, '#');
  });

  it('busy and failed calls end Busy/DestinationBusy and Failed/TechnicalFailure', async () => {
    fx.fake.expectCall({ answer: 'busy' });
    const busy = await callThrough();
    assert.equal(busy.record.status, 6);
    assert.equal(busy.record.result, 5);
    fx.fake.expectCall({ answer: 'failed' });
    const failed = await callThrough();
    assert.equal(failed.record.status, 7);
    assert.equal(failed.record.result, 6);
  });

  it('refuses callbacks without a valid X-Twilio-Signature, and late or repeated reports never move a finished call', async () => {
    fx.fake.expectCall({ answer: true, digits: ['1'] });
    const { record } = await callThrough();
    const statusUrl = `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${record.id}/status`;
    const params = { CallSid: record.callId, CallStatus: 'ringing' };
    const forged = await fx.fake.post(statusUrl, params, 'bm90LWEtc2lnbmF0dXJl');
    assert.equal(forged.status, 403);
    assert.match(forged.body, /Voice:InvalidSignature/);
    const unsigned = await fetch(statusUrl, { method: 'POST', body: new URLSearchParams(params) });
    assert.equal(unsigned.status, 403);
    const answerUrl = `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${record.id}/answer`;
    assert.equal((await fx.fake.post(answerUrl, params, 'bm90LWEtc2lnbmF0dXJl')).status, 403);
    // A real signature, but over other fields, another call's URL or another turn.
    const signedFor = (url: string, fields: Record<string, string>) => getExpectedTwilioSignature(AUTH_TOKEN, url, fields);
    assert.equal((await fx.fake.post(statusUrl, { ...params, CallStatus: 'busy' }, signedFor(statusUrl, params))).status, 403);
    const otherCall = statusUrl.replace(record.id, '00000000-0000-4000-8000-000000000000');
    assert.equal((await fx.fake.post(statusUrl, params, signedFor(otherCall, params))).status, 403);
    const gatherUrl = `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${record.id}/gather`;
    assert.equal((await fx.fake.post(`${gatherUrl}?turn=1`, params, signedFor(`${gatherUrl}?turn=0`, params))).status, 403);

    assert.equal((await fx.fake.post(statusUrl, params)).status, 204);
    assert.equal((await fx.fake.post(statusUrl, { CallSid: record.callId, CallStatus: 'busy' })).status, 204);
    assert.equal((await fx.fake.post(statusUrl, { CallSid: record.callId, CallStatus: 'completed', CallDuration: '99' })).status, 204);
    const again = (await fx.a.api.get(`/v1/outbound-ivr/${record.id}`)).body;
    assert.deepEqual(again, record);
  });

  it('cancelling a ringing call hangs it up at the provider; the call ends Cancelled', async () => {
    fx.fake.expectCall({ answer: 'no-answer', ringMs: 1500 });
    const body = request();
    const created = await fx.a.api.post('/v1/outbound-ivr', body);
    await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body.status === 2, 10_000, 'ringing');
    const sid = fx.fake.calls.at(-1)!.sid;
    const cancelled = await fx.a.api.post(`/v1/outbound-ivr/${created.body.id}/cancel`, {});
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.status, 8);
    const hangUp = await waitFor(
      async () => fx.fake.requests.find((r) => r.path.endsWith(`/Calls/${sid}.json`)),
      10_000,
      'the hang-up request',
    );
    assert.equal(hangUp.form.get('Status'), 'completed');
    await fx.fake.calls.at(-1)!.done;
    const final = (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body;
    assert.equal(final.status, 8, 'the late no-answer report does not move the cancelled call');
    assert.equal(final.result, 7);
  });

  it('a repeated or stale gather callback gets the current TwiML again and does not move the dialog', async () => {
    fx.fake.expectCall({ answer: 'no-answer', ringMs: 4000 });
    const created = await fx.a.api.post('/v1/outbound-ivr', request({ maxAudioRetries: 2 }));
    await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body.status === 2, 10_000, 'ringing');
    const base = `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${created.body.id}`;
    const params = { CallSid: fx.fake.calls.at(-1)!.sid, CallStatus: 'in-progress' };
    const first = await fx.fake.post(`${base}/answer`, params);
    assert.match(first.body, /turn=0/);
    assert.equal((await fx.fake.post(`${base}/answer`, params)).body, first.body, 'a repeated answer callback');
    const invalid = await fx.fake.post(`${base}/gather?turn=0`, { ...params, Digits: '9' });
    assert.match(invalid.body, /failed\.wav.*turn=1/);
    const stale = await fx.fake.post(`${base}/gather?turn=0`, { ...params, Digits: '1' });
    assert.equal(stale.body, invalid.body, 'a stale turn');
    const valid = await fx.fake.post(`${base}/gather?turn=1`, { ...params, Digits: '1' });
    assert.match(valid.body, /<Hangup\/>/);
    await fx.fake.post(`${base}/status`, { ...params, CallStatus: 'completed', CallDuration: '9' });
    const record = (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body;
    assert.deepEqual([record.status, record.result, record.pressedDigit, record.callDurationSeconds], [4, 1, '1', 9]);
    await fx.fake.calls.at(-1)!.done;
    assert.equal((await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body.status, 4, 'the late no-answer changes nothing');
  });

  it('a provider 500 on placing is not retried (the call may exist); the sweeper ends it Failed', async () => {
    fx.fake.expectCall({ answer: true, apiStatus: 500 });
    const before = fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).length;
    const created = await fx.a.api.post('/v1/outbound-ivr', request());
    await waitFor(
      async () => fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).length > before,
      10_000,
      'the placement request',
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).length, before + 1, 'asked once');
    assert.equal((await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body.status, 0);
    assert.ok((await fx.t.app.get(CallSweeper).sweep(0)) >= 1);
    const record = (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body;
    assert.deepEqual([record.status, record.result, record.hangupCause], [7, 6, 'NO_FINAL_REPORT']);
  });

  it('answers an inbound call with the greeting and reports it once: call record, timeline event and Call Webhook', async () => {
    const inboundUrl = `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/channels/${channel.id}/inbound`;
    const params = { CallSid: 'CAinbound0001', From: '+14155550999', To: '+14155550100', CallStatus: 'ringing', Direction: 'inbound' };
    const greeting = await fx.fake.post(inboundUrl, params);
    assert.equal(greeting.status, 200);
    assert.equal(greeting.body, '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Thanks for calling Acme.</Say><Hangup/></Response>');
    assert.equal((await fx.fake.post(inboundUrl, params, 'bm90LWEtc2lnbmF0dXJl')).status, 403);

    const ended = { ...params, CallStatus: 'completed', CallDuration: '4' };
    assert.equal((await fx.fake.post(`${inboundUrl}/status`, ended)).status, 204);
    assert.equal((await fx.fake.post(`${inboundUrl}/status`, ended)).status, 204);
    const hook = await waitFor(
      async () => fx.receiver.at('/calls').find((r) => r.body.includes('CAinbound0001')),
      10_000,
      'the Call Webhook',
    );
    const payload = verifySignature(hook, fx.a.webhookSecret) as Record<string, unknown>;
    assert.equal(payload.type, 1);
    assert.equal(payload.status, 1);
    assert.equal(payload.callerNumber, '+14155550999');
    assert.equal(payload.calleeNumber, '+14155550100');
    assert.equal(payload.callLength, '00:00:04');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(fx.receiver.at('/calls').filter((r) => r.body.includes('CAinbound0001')).length, 1, 'reported once');

    const conversation = (
      await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+14155550999' })
    ).body.conversation;
    const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
    const event = timeline.body.items.find((e: { sourceType: number }) => e.sourceType === 1);
    assert.equal(event?.direction, 1);
  });

  /** The signed Call Webhook of a call, by its sid. */
  const callWebhookOf = async (sid: string) =>
    verifySignature(
      await waitFor(async () => fx.receiver.at('/calls').find((r) => r.body.includes(sid)), 10_000, 'the Call Webhook'),
      fx.a.webhookSecret,
    ) as Record<string, unknown>;
  /** The last Calls.json request: tests run one call at a time. */
  const lastPlaced = () => fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).at(-1)!;

  it('Hangup: Twilio detects with MachineDetection=Enable; machine_start is answered with a bare Hangup and ends Completed, AnsweringMachine', async () => {
    fx.fake.expectCall({ answer: true, pickedUpBy: 'machine', digits: ['1'], durationSeconds: 3 });
    const { record, payload } = await callThrough({ machineDetection: 'Hangup' });
    const call = fx.fake.calls.at(-1)!;
    const placed = lastPlaced();
    assert.equal(placed.form.get('MachineDetection'), 'Enable');
    assert.equal(placed.form.get('AsyncAmd'), null, 'synchronous detection: the answer URL waits for the verdict');
    assert.deepEqual(
      call.twiml,
      ['<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>'],
      'no prompt is played to the machine',
    );
    assert.deepEqual([record.status, record.result, record.answeredBy, record.pressedDigit], [4, 8, 'machine_start', null]);
    assert.equal(record.callDurationSeconds, 3);
    assert.equal(record.errorMessage, null);
    assert.equal(record.hangupCause, 'NORMAL_CLEARING');
    assert.deepEqual([payload.result, payload.answeredBy], [8, 'machine_start']);
    const callHook = await callWebhookOf(call.sid);
    assert.deepEqual([callHook.status, callHook.answeredBy, callHook.callLength], [1, 'machine_start', '00:00:03']);
  });

  it('LeaveMessage: MachineDetection=DetectMessageEnd; after the beep our TwiML plays the voicemail, then hangs up; a person gets the IVR', async () => {
    const voicemail = 'https://media.example.com/voicemail.wav';
    fx.fake.expectCall({ answer: true, pickedUpBy: 'machine', durationSeconds: 12 });
    const machine = await callThrough({ machineDetection: 'LeaveMessage', voicemailAudioFileUrl: voicemail });
    const call = fx.fake.calls.at(-1)!;
    assert.equal(lastPlaced().form.get('MachineDetection'), 'DetectMessageEnd');
    assert.deepEqual(call.twiml, [`<?xml version="1.0" encoding="UTF-8"?><Response><Play>${voicemail}</Play><Hangup/></Response>`]);
    assert.deepEqual([machine.record.status, machine.record.result, machine.record.answeredBy], [4, 8, 'machine_end_beep']);
    assert.equal(machine.payload.answeredBy, 'machine_end_beep');
    assert.equal((await callWebhookOf(call.sid)).answeredBy, 'machine_end_beep');

    fx.fake.expectCall({ answer: true, pickedUpBy: 'human', digits: ['1'] });
    const person = await callThrough({ machineDetection: 'LeaveMessage', voicemailAudioFileUrl: voicemail });
    const personCall = fx.fake.calls.at(-1)!;
    assert.equal(lastPlaced().form.get('MachineDetection'), 'DetectMessageEnd');
    assert.match(personCall.twiml[0], /<Play>https:\/\/media\.example\.com\/welcome\.wav<\/Play><Gather/);
    assert.doesNotMatch(personCall.twiml.join(''), /voicemail/);
    assert.deepEqual([person.record.result, person.record.pressedDigit, person.record.answeredBy], [1, '1', 'human']);
    assert.equal((await callWebhookOf(personCall.sid)).answeredBy, 'human');

    // A fax is a machine too, but no voicemail is left on it.
    fx.fake.expectCall({ answer: true, pickedUpBy: 'fax' });
    const fax = await callThrough({ machineDetection: 'LeaveMessage', voicemailAudioFileUrl: voicemail });
    assert.deepEqual(fx.fake.calls.at(-1)!.twiml, ['<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>']);
    assert.deepEqual([fax.record.result, fax.record.answeredBy], [8, 'fax']);
  });

  it("a machine's answer reported only with the end of the call ends AnsweringMachine, not TechnicalFailure", async () => {
    fx.fake.expectCall({ answer: 'no-answer', ringMs: 4000 });
    const created = await fx.a.api.post('/v1/outbound-ivr', request({ machineDetection: 'Hangup' }));
    assert.equal(created.status, 200, created.text);
    await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body.status === 2, 10_000, 'ringing');
    const sid = fx.fake.calls.at(-1)!.sid;
    const statusUrl = `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${created.body.id}/status`;
    const ended = { CallSid: sid, CallStatus: 'completed', CallDuration: '2', AnsweredBy: 'machine_start' };
    assert.equal((await fx.fake.post(statusUrl, ended)).status, 204);
    const record = (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body;
    assert.deepEqual([record.status, record.result, record.answeredBy, record.callDurationSeconds], [4, 8, 'machine_start', 2]);
    assert.equal(record.errorMessage, null);
    await fx.fake.calls.at(-1)!.done;
  });

  it('machineDetection is validated: 400 for an unknown value and for LeaveMessage without a voicemail prompt', async () => {
    const before = fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).length;
    const unknown = await fx.a.api.post('/v1/outbound-ivr', request({ machineDetection: 'Voicemail' }));
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.error.code, 'Request:ValidationFailed');
    const bare = await fx.a.api.post('/v1/outbound-ivr', request({ machineDetection: 'LeaveMessage' }));
    assert.equal(bare.status, 400, bare.text);
    assert.equal(bare.body.error.code, 'OutboundIvr:InvalidRequest');
    assert.match(bare.body.error.message, /voicemailAudioFileUrl and voicemailTtsText/);
    assert.equal(fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).length, before, 'no call placed');
  });
});
