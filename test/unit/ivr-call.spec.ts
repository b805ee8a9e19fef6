import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyProgress } from '../../src/outbound-ivr/call-progress.js';
import { converse } from '../../src/outbound-ivr/dialog/dialog-engine.js';
import type { DialogState } from '../../src/outbound-ivr/dialog/dialog-state.js';
import type { IvrScript } from '../../src/outbound-ivr/dialog/ivr-script.js';
import { OutboundIvrResult, OutboundIvrStatus } from '../../src/outbound-ivr/ivr-enums.js';
import type { OutboundIvrRequestEntity } from '../../src/outbound-ivr/outbound-ivr-request.entity.js';

const now = new Date('2026-11-21T10:00:00.000Z');
const later = (s: number) => new Date(now.getTime() + s * 1000);

const script: IvrScript = {
  startStepId: 'q',
  steps: {
    q: {
      id: 'q',
      type: 'Question',
      audioUrl: 'q.wav',
      prompt: 'Press 1 or 2',
      options: [
        { digit: '1', description: 'One', nextStepId: null, responseUrl: null },
        { digit: '2', description: 'Two', nextStepId: 'bye', responseUrl: 'two.wav' },
      ],
      maxAudioRetries: 1,
      inputTimeoutMs: 5000,
      noInputStepId: null,
      invalidInputStepId: 'bye',
    },
    bye: { id: 'bye', type: 'Hangup', audioUrl: 'bye.wav' },
  },
  welcomeUrl: 'welcome.wav',
  successUrl: 'ok.wav',
  failedUrl: 'failed.wav',
  digitTimeoutMs: 3000,
};

function record(changes: Partial<OutboundIvrRequestEntity> = {}): OutboundIvrRequestEntity {
  return {
    status: OutboundIvrStatus.Pending,
    result: OutboundIvrResult.None,
    callId: null,
    initiatedAt: null,
    ringingAt: null,
    answeredAt: null,
    completedAt: null,
    callDurationSeconds: null,
    hangupCause: null,
    errorMessage: null,
    dialog: null,
    ...changes,
  } as OutboundIvrRequestEntity;
}

describe('the IVR dialog engine', () => {
  const start = () => converse(script, null, { kind: 'answered' }, now).state;

  it('plays the welcome file and asks the first question', () => {
    const state = start();
    assert.deepEqual(state.instructions, {
      play: ['welcome.wav'],
      gather: { promptUrl: 'q.wav', timeoutMs: 5000, digitTimeoutMs: 3000 },
      turn: 0,
    });
    assert.equal(state.stepId, 'q');
  });

  it('a listed digit records the answer, plays the success file and ends DigitPressed', () => {
    const turn = converse(script, start(), { kind: 'digit', digit: '1' }, now);
    assert.deepEqual(turn.answer, { stepId: 'q', prompt: 'Press 1 or 2', digit: '1', description: 'One', answeredAt: now.toISOString() });
    assert.deepEqual(turn.state.instructions, { play: ['ok.wav'], gather: null, turn: 1 });
    assert.equal(turn.state.result, OutboundIvrResult.DigitPressed);
  });

  it("an option's response file and next step replace the success file", () => {
    const turn = converse(script, start(), { kind: 'digit', digit: '2' }, now);
    assert.deepEqual(turn.state.instructions.play, ['two.wav', 'bye.wav']);
    assert.equal(turn.state.instructions.gather, null);
  });

  it('an invalid digit plays the failed file and asks again; past the retries it goes to invalidInputStepId', () => {
    const again = converse(script, start(), { kind: 'digit', digit: '9' }, now).state;
    assert.deepEqual(again.instructions.play, ['failed.wav']);
    assert.equal(again.instructions.gather?.promptUrl, 'q.wav');
    const over = converse(script, again, { kind: 'digit', digit: '9' }, now).state;
    assert.deepEqual(over.instructions, { play: ['failed.wav', 'bye.wav'], gather: null, turn: 2 });
    assert.equal(over.result, OutboundIvrResult.InvalidInput);
  });

  it('silence asks again without the failed file, then ends NoInput', () => {
    const again = converse(script, start(), { kind: 'silence' }, now).state;
    assert.deepEqual(again.instructions.play, []);
    const over: DialogState = converse(script, again, { kind: 'silence' }, now).state;
    assert.equal(over.instructions.gather, null);
    assert.equal(over.result, OutboundIvrResult.NoInput);
  });
});

describe('the call state machine', () => {
  it("keeps the first answeredBy, and a machine's answer ends Completed + AnsweringMachine even when reported only at the end", () => {
    const ringing = record({ status: OutboundIvrStatus.Ringing, ringingAt: now, answeredBy: null });
    assert.deepEqual(applyProgress(ringing, { kind: 'answered', at: later(1), answeredBy: 'machine_start' }), {
      status: OutboundIvrStatus.InProgress,
      answeredAt: later(1),
      answeredBy: 'machine_start',
    });
    const decided = record({ status: OutboundIvrStatus.InProgress, ringingAt: now, answeredAt: now, answeredBy: 'human' });
    assert.equal(applyProgress(decided, { kind: 'answered', at: later(1), answeredBy: 'machine_start' }), null);

    const ended = applyProgress(ringing, {
      kind: 'ended',
      at: later(3),
      ending: 'completed',
      durationSeconds: 3,
      answeredBy: 'machine_start',
    })!;
    assert.deepEqual(
      [ended.status, ended.result, ended.answeredBy, ended.callDurationSeconds, ended.errorMessage],
      [OutboundIvrStatus.Completed, OutboundIvrResult.AnsweringMachine, 'machine_start', 3, null],
    );
    // Without a machine's verdict, a "completed" call that never connected is still a failure.
    const unknown = applyProgress(ringing, { kind: 'ended', at: later(3), ending: 'completed', answeredBy: 'unknown' })!;
    assert.deepEqual([unknown.status, unknown.result], [OutboundIvrStatus.Failed, OutboundIvrResult.TechnicalFailure]);
  });

  it('moves forward only, and fills each timestamp once', () => {
    const ringing = record({ status: OutboundIvrStatus.Ringing, ringingAt: now, initiatedAt: now, callId: 'CA1' });
    assert.equal(applyProgress(ringing, { kind: 'initiated', at: later(1), callId: 'CA2' }), null);
    assert.equal(applyProgress(ringing, { kind: 'ringing', at: later(1) }), null);
    assert.deepEqual(applyProgress(ringing, { kind: 'answered', at: later(2) }), {
      status: OutboundIvrStatus.InProgress,
      answeredAt: later(2),
    });
  });

  it('ends Completed with the dialog result and the measured duration', () => {
    const talking = record({
      status: OutboundIvrStatus.InProgress,
      answeredAt: now,
      dialog: { result: OutboundIvrResult.DigitPressed, error: null } as DialogState,
    });
    assert.deepEqual(applyProgress(talking, { kind: 'ended', at: later(12), ending: 'completed' }), {
      status: OutboundIvrStatus.Completed,
      result: OutboundIvrResult.DigitPressed,
      completedAt: later(12),
      callDurationSeconds: 12,
      hangupCause: 'NORMAL_CLEARING',
      errorMessage: null,
    });
  });

  it('maps no-answer, busy and a "completed" call that never connected', () => {
    const ringing = record({ status: OutboundIvrStatus.Ringing });
    const noAnswer = applyProgress(ringing, { kind: 'ended', at: now, ending: 'no-answer' })!;
    assert.deepEqual(
      [noAnswer.status, noAnswer.result, noAnswer.hangupCause],
      [OutboundIvrStatus.NoAnswer, OutboundIvrResult.NotAnswered, 'NO_ANSWER'],
    );
    const busy = applyProgress(ringing, { kind: 'ended', at: now, ending: 'busy' })!;
    assert.deepEqual([busy.status, busy.result], [OutboundIvrStatus.Busy, OutboundIvrResult.DestinationBusy]);
    const phantom = applyProgress(ringing, { kind: 'ended', at: now, ending: 'completed' })!;
    assert.deepEqual([phantom.status, phantom.result], [OutboundIvrStatus.Failed, OutboundIvrResult.TechnicalFailure]);
  });

  it('never changes a finished call', () => {
    const done = record({ status: OutboundIvrStatus.Completed, completedAt: now, callId: 'CA1' });
    for (const kind of ['initiated', 'ringing', 'answered'] as const) {
      assert.equal(applyProgress(done, { kind, at: later(1), callId: 'x' }), null);
    }
    assert.equal(applyProgress(done, { kind: 'ended', at: later(1), ending: 'busy' }), null);
  });

  it('a call cancelled while it was being placed still learns its id (to be hung up), and nothing else', () => {
    const cancelled = record({ status: OutboundIvrStatus.Cancelled, result: OutboundIvrResult.Cancelled, completedAt: now });
    assert.deepEqual(applyProgress(cancelled, { kind: 'initiated', at: later(1), callId: 'CA9' }), { callId: 'CA9' });
    assert.equal(applyProgress(cancelled, { kind: 'answered', at: later(2) }), null);
  });
});
