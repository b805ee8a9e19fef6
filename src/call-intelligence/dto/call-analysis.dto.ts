import { ApiProperty } from '@nestjs/swagger';
import { SENTIMENTS, type Sentiment } from '../call-analysis.js';

/** One stretch of speech of a recorded call; offsets in seconds from the recording's start. */
export class TranscriptSegmentDto {
  @ApiProperty({ enum: ['Business', 'Customer'], example: 'Customer' }) speaker: 'Business' | 'Customer';
  @ApiProperty({ example: 4.2 }) start: number;
  @ApiProperty({ example: 5.9 }) end: number;
  @ApiProperty({ example: 'I would like to confirm, please.' }) text: string;
}

/** One evaluation criterion as the language model judged the call. */
export class CriterionResultDto {
  @ApiProperty({ example: 'Confirmed' }) name: string;
  @ApiProperty({ example: true }) passed: boolean;
  @ApiProperty({ example: 'The customer pressed 1 to confirm.' }) reason: string;
}

/** GET /v1/outbound-ivr/{id}/transcript: a call's transcript and analysis (API.md §16). */
export class CallTranscriptDto {
  @ApiProperty({ format: 'uuid' }) outboundIvrRequestId: string;
  @ApiProperty({
    enum: ['NotRequested', 'Pending', 'Completed', 'Failed'],
    description:
      'NotRequested: the call has no stored recording, or the workspace no transcription provider; Pending: being analysed; Failed: see analysisError.',
  })
  status: 'NotRequested' | 'Pending' | 'Completed' | 'Failed';
  @ApiProperty({ type: String, nullable: true, description: "The provider's error after the retries; null otherwise." })
  analysisError: string | null;
  @ApiProperty({ type: [TranscriptSegmentDto], description: 'In the order they were said; empty until Completed.' })
  segments: TranscriptSegmentDto[];
  @ApiProperty({ type: String, nullable: true, description: 'Null without a summary provider, or until Completed.' })
  summary: string | null;
  @ApiProperty({ enum: SENTIMENTS, enumName: 'CallSentiment', nullable: true }) sentiment: Sentiment | null;
  @ApiProperty({ type: [CriterionResultDto], nullable: true, description: "One per the workspace's evaluation criteria." })
  evaluationCriteriaResult: CriterionResultDto[] | null;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-29T09:00:12.000+00:00' }) analysedAt: string | null;
}
