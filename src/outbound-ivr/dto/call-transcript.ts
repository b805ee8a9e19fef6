import type { CallTranscriptDto } from '../../call-intelligence/dto/call-analysis.dto.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';

/** A call record's analysis as GET /v1/outbound-ivr/{id}/transcript shows it. */
export function toCallTranscript(r: OutboundIvrRequestEntity): CallTranscriptDto {
  return {
    outboundIvrRequestId: r.id,
    status: r.analysisStatus ?? 'NotRequested',
    analysisError: r.analysisError,
    segments: r.transcript ?? [],
    summary: r.summary,
    sentiment: r.sentiment,
    evaluationCriteriaResult: r.evaluationCriteriaResult,
    analysedAt: formatTimestamp(r.analysedAt, TimestampFormat.withOffset),
  };
}
