import { ApiProperty } from '@nestjs/swagger';
import { IsEnum, IsString, IsUUID, MaxLength } from 'class-validator';
import { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { TimestampFormat, formatTimestamp } from '../../common/time/timestamp-format.js';
import type { WebhookDelivery } from '../webhook-delivery.entity.js';
import { WebhookDeliveryStatus, WebhookKind } from '../webhook-kind.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';

export class ListWebhookDeliveriesDto extends PagedRequestDto {
  @ApiProperty({ enum: WebhookKind, enumName: 'WebhookKind', required: false })
  @IsOptionalNotNull()
  @IsEnum(WebhookKind)
  kind?: WebhookKind;

  @ApiProperty({ enum: WebhookDeliveryStatus, enumName: 'WebhookDeliveryStatus', required: false })
  @IsOptionalNotNull()
  @IsEnum(WebhookDeliveryStatus)
  status?: WebhookDeliveryStatus;

  /** Deliveries to this endpoint only. */
  @IsOptionalNotNull() @IsUUID('all') endpointId?: string;

  /** Deliveries of this event type only (any type of GET /v1/webhook-event-types). */
  @IsOptionalNotNull() @IsString() @MaxLength(50) eventType?: string;
}

export class WebhookDeliveryDto {
  /** Also the `webhook-id` header of every attempt. */
  id: string;
  /** The event type (`webhook-event` header): one of GET /v1/webhook-event-types. */
  kind: string;
  /** The endpoint it goes to; null for a channel's or a request's URL. */
  endpointId: string | null;
  targetUrl: string;
  @ApiProperty({ enum: WebhookDeliveryStatus, enumName: 'WebhookDeliveryStatus' }) status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** ISO 8601 UTC; null once the event succeeded or failed for good. */
  nextAttemptAt: string | null;
  /** ISO 8601 UTC. */
  creationTime: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) payload: Record<string, unknown>;

  static from(delivery: WebhookDelivery): WebhookDeliveryDto {
    return {
      id: delivery.id,
      kind: delivery.kind,
      endpointId: delivery.endpointId,
      targetUrl: delivery.targetUrl,
      status: delivery.status,
      attempts: delivery.attempts,
      lastStatusCode: delivery.lastStatusCode,
      lastError: delivery.lastError,
      nextAttemptAt: formatTimestamp(delivery.nextAttemptAt, TimestampFormat.utc),
      creationTime: TimestampFormat.utc(delivery.creationTime),
      payload: delivery.payload,
    };
  }
}
