import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toFlowDefinition } from '../../src/outbound-ivr-flows/dto/outbound-ivr-flow.dto.js';
import type { FlowDefinition, FlowStep, QuestionOption, QuestionProps } from '../../src/outbound-ivr-flows/flow-definition.js';
import { findFlowIssues } from '../../src/outbound-ivr-flows/flow-graph.js';
import { TtsVoice } from '../../src/speech/tts-voice.js';

const prompt = { audioFileUrl: null, ttsText: 'Hello', ttsVoice: TtsVoice.Female };
const play = (id: string, nextStepId: string | null = null): FlowStep => ({ id, type: 'Play', props: { ...prompt, nextStepId } });
const hangup = (id: string): FlowStep => ({ id, type: 'Hangup', props: { ...prompt, ttsText: null } });
const option = (digit: QuestionOption['digit'], nextStepId: string | null = null): QuestionOption => ({
  digit,
  description: `Key ${digit}`,
  nextStepId,
  responseMessageFileUrl: null,
});
const question = (id: string, options: QuestionOption[], extra: Partial<QuestionProps> = {}): FlowStep => ({
  id,
  type: 'Question',
  props: { ...prompt, options, maxAudioRetries: 2, inputTimeoutMs: 6000, noInputStepId: null, invalidInputStepId: null, ...extra },
});
const flow = (startStepId: string, ...steps: FlowStep[]): FlowDefinition => ({ startStepId, steps });

describe('flow graph validation', () => {
  it('accepts a sound flow, loops included', () => {
    const definition = flow(
      'welcome',
      play('welcome', 'ask'),
      question('ask', [option('1', 'thanks'), option('2', 'ask'), option('3')], { noInputStepId: 'bye', invalidInputStepId: 'ask' }),
      play('thanks', 'bye'),
      hangup('bye'),
    );
    assert.deepEqual(findFlowIssues(definition), []);
  });

  it('names a repeated step id', () => {
    assert.deepEqual(findFlowIssues(flow('a', play('a', 'b'), hangup('b'), hangup('a'))), [
      { message: "Step 'a' is defined more than once.", members: ['steps[2].id'] },
    ]);
  });

  it('names a startStepId that points nowhere, without also calling every step unreachable', () => {
    assert.deepEqual(findFlowIssues(flow('start', play('a', 'b'), hangup('b'))), [
      { message: "startStepId 'start' does not exist.", members: ['startStepId'] },
    ]);
  });

  it('names each dangling reference with its member', () => {
    const definition = flow(
      'welcome',
      play('welcome', 'ask-size'),
      play('intro', 'nowhere'),
      question('ask-size', [option('1', 'thanks'), option('2', 'pay')], { noInputStepId: 'gone', invalidInputStepId: 'lost' }),
      play('thanks', 'intro'),
    );
    assert.deepEqual(findFlowIssues(definition), [
      { message: "Step 'intro': nextStepId 'nowhere' does not exist.", members: ['steps[1].props.nextStepId'] },
      { message: "Step 'ask-size': option '2' nextStepId 'pay' does not exist.", members: ['steps[2].props.options[1].nextStepId'] },
      { message: "Step 'ask-size': noInputStepId 'gone' does not exist.", members: ['steps[2].props.noInputStepId'] },
      { message: "Step 'ask-size': invalidInputStepId 'lost' does not exist.", members: ['steps[2].props.invalidInputStepId'] },
    ]);
  });

  it('does not also call the steps behind a broken link unreachable', () => {
    assert.deepEqual(findFlowIssues(flow('a', play('a', 'missing'), hangup('b'))), [
      { message: "Step 'a': nextStepId 'missing' does not exist.", members: ['steps[0].props.nextStepId'] },
    ]);
  });

  it('names steps that cannot be reached, even when they reach each other', () => {
    const definition = flow('ask', question('ask', [option('1', 'end')]), hangup('end'), play('island', 'loop'), play('loop', 'island'));
    assert.deepEqual(findFlowIssues(definition), [
      { message: "Step 'island' cannot be reached from startStepId 'ask'.", members: ['steps[2].id'] },
      { message: "Step 'loop' cannot be reached from startStepId 'ask'.", members: ['steps[3].id'] },
    ]);
  });

  it('follows noInputStepId and invalidInputStepId when looking for reachable steps', () => {
    const definition = flow(
      'ask',
      question('ask', [option('1')], { noInputStepId: 'silent', invalidInputStepId: 'wrong' }),
      hangup('silent'),
      hangup('wrong'),
    );
    assert.deepEqual(findFlowIssues(definition), []);
  });

  it('wants exactly one of audioFileUrl / ttsText on Play and Question, at most one on Hangup', () => {
    const both = { audioFileUrl: 'https://example.com/a.wav', ttsText: 'Hi' };
    const definition: FlowDefinition = {
      startStepId: 'a',
      steps: [
        { id: 'a', type: 'Play', props: { ...prompt, ttsText: null, nextStepId: 'b' } },
        { id: 'b', type: 'Play', props: { ...prompt, ...both, nextStepId: 'c' } },
        { id: 'c', type: 'Hangup', props: { ...prompt, ...both } },
      ],
    };
    assert.deepEqual(findFlowIssues(definition), [
      {
        message: "Step 'a': a Play step needs audioFileUrl or ttsText.",
        members: ['steps[0].props.audioFileUrl', 'steps[0].props.ttsText'],
      },
      { message: "Step 'b': give audioFileUrl or ttsText, not both.", members: ['steps[1].props.audioFileUrl', 'steps[1].props.ttsText'] },
      { message: "Step 'c': give audioFileUrl or ttsText, not both.", members: ['steps[2].props.audioFileUrl', 'steps[2].props.ttsText'] },
    ]);
    const silentQuestion = flow('q', question('q', [option('1')], { ttsText: null }));
    assert.equal(findFlowIssues(silentQuestion)[0].message, "Step 'q': a Question step needs audioFileUrl or ttsText.");
  });
});

describe('flow definition from a request', () => {
  it('applies the defaults and turns absent values into null', () => {
    const definition = toFlowDefinition({
      name: 'Survey',
      startStepId: 'ask',
      steps: [
        { id: 'ask', type: 'Question', props: { ttsText: 'Press 1', options: [{ digit: '1', description: 'Yes' }] } },
        { id: 'bye', type: 'Hangup', props: {} },
        { id: 'tell', type: 'Play', props: { audioFileUrl: 'https://example.com/a.wav', ttsVoice: TtsVoice.Male } },
      ],
    });
    assert.deepEqual(definition, {
      startStepId: 'ask',
      steps: [
        {
          id: 'ask',
          type: 'Question',
          props: {
            audioFileUrl: null,
            ttsText: 'Press 1',
            ttsVoice: TtsVoice.Female,
            options: [{ digit: '1', description: 'Yes', nextStepId: null, responseMessageFileUrl: null }],
            maxAudioRetries: 2,
            inputTimeoutMs: 6000,
            noInputStepId: null,
            invalidInputStepId: null,
          },
        },
        { id: 'bye', type: 'Hangup', props: { audioFileUrl: null, ttsText: null, ttsVoice: TtsVoice.Female } },
        {
          id: 'tell',
          type: 'Play',
          props: { audioFileUrl: 'https://example.com/a.wav', ttsText: null, ttsVoice: TtsVoice.Male, nextStepId: null },
        },
      ],
      machineDetection: 'Off',
      voicemailAudioFileUrl: null,
      voicemailTtsText: null,
      // Not set: the call's own `record`, else the channel's recordCalls, decides.
      record: null,
    });
  });

  it('keeps the machine detection and its voicemail', () => {
    const definition = toFlowDefinition({
      name: 'Reminder',
      startStepId: 'bye',
      steps: [{ id: 'bye', type: 'Hangup', props: {} }],
      machineDetection: 'LeaveMessage',
      voicemailTtsText: 'Please call us back.',
    });
    assert.deepEqual(
      [definition.machineDetection, definition.voicemailAudioFileUrl, definition.voicemailTtsText],
      ['LeaveMessage', null, 'Please call us back.'],
    );
  });
});
