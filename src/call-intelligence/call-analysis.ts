import type { EvaluationCriterion } from './call-intelligence.entity.js';
import type { IntelligencePlan } from './call-intelligence.service.js';
import { OpenAiCompatibleClient } from './openai-compatible-client.js';
import { mergeSegments, splitChannels, type TranscriptSegment } from './transcript.js';

export type { TranscriptSegment } from './transcript.js';

export const ANALYSIS_STATUSES = ['Pending', 'Completed', 'Failed'] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

export const SENTIMENTS = ['Positive', 'Neutral', 'Negative'] as const;
export type Sentiment = (typeof SENTIMENTS)[number];

/** One evaluation criterion as the language model judged the call. */
export interface CriterionResult {
  name: string;
  passed: boolean;
  reason: string;
}

/** What a recorded call's analysis found; the summary's parts are null without a summary provider. */
export interface CallAnalysis {
  transcript: TranscriptSegment[];
  summary: string | null;
  sentiment: Sentiment | null;
  evaluationCriteriaResult: CriterionResult[] | null;
}

const DEFAULT_PROMPT =
  'You read the transcript of a phone call between a business (an automated voice menu) and a customer. ' +
  'Summarise what happened in two or three sentences, judge the customer’s sentiment, and judge each evaluation criterion.';

/**
 * Transcribes a two-channel recording (left the business, right the customer: each channel on its
 * own, so every segment has its speaker), then, with a summary provider, asks for the summary, the
 * sentiment and one result per criterion in one JSON-schema answer. Throws the providers' errors
 * ({@link ProviderError}, retryable or not) for the caller to retry or give up.
 */
export async function analyseRecording(wav: Buffer, plan: IntelligencePlan): Promise<CallAnalysis> {
  if (!plan.transcription) throw new Error('No transcription provider');
  const { business, customer } = splitChannels(wav);
  const transcriber = new OpenAiCompatibleClient(plan.transcription);
  const transcript = mergeSegments(
    await transcriber.transcribe(business, 'business.wav'),
    await transcriber.transcribe(customer, 'customer.wav'),
  );
  if (!plan.summary) return { transcript, summary: null, sentiment: null, evaluationCriteriaResult: null };
  const answer = await new OpenAiCompatibleClient(plan.summary).completeJson<{
    summary: string;
    sentiment: Sentiment;
    evaluationCriteriaResult: CriterionResult[];
  }>(
    [
      { role: 'system', content: plan.summary.prompt ?? DEFAULT_PROMPT },
      { role: 'user', content: userMessage(transcript, plan.evaluationCriteria) },
    ],
    'call_analysis',
    analysisSchema(),
  );
  const sentiment = (SENTIMENTS as readonly string[]).includes(answer.sentiment) ? answer.sentiment : 'Neutral';
  // One result per criterion asked, in the order asked, whatever the model listed.
  const judged = new Map((answer.evaluationCriteriaResult ?? []).map((r) => [r.name, r]));
  const evaluationCriteriaResult = plan.evaluationCriteria.map((c) => ({
    name: c.name,
    passed: judged.get(c.name)?.passed === true,
    reason: String(judged.get(c.name)?.reason ?? 'Not judged by the model.'),
  }));
  return { transcript, summary: String(answer.summary ?? ''), sentiment, evaluationCriteriaResult };
}

/** The transcript as lines of text: `[m:ss] Speaker: words` (the Call Webhook's and timeline's `transcription`). */
export function transcriptText(transcript: TranscriptSegment[]): string {
  const at = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;
  return transcript.map((s) => `[${at(s.start)}] ${s.speaker}: ${s.text}`).join('\n');
}

function userMessage(transcript: TranscriptSegment[], criteria: EvaluationCriterion[]): string {
  const judged = criteria.length === 0 ? 'No evaluation criteria.' : criteria.map((c) => `- ${c.name}: ${c.description}`).join('\n');
  return `Transcript:\n${transcriptText(transcript) || '(nothing was said)'}\n\nEvaluation criteria:\n${judged}`;
}

function analysisSchema(): object {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['summary', 'sentiment', 'evaluationCriteriaResult'],
    properties: {
      summary: { type: 'string' },
      sentiment: { type: 'string', enum: [...SENTIMENTS] },
      evaluationCriteriaResult: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'passed', 'reason'],
          properties: { name: { type: 'string' }, passed: { type: 'boolean' }, reason: { type: 'string' } },
        },
      },
    },
  };
}
