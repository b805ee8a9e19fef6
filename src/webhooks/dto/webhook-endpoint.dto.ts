import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsBoolean, IsInt, IsObject, IsString, IsUrl, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { IsIsoDateTime } from '../../common/time/iso-date-time.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { OptionalNullable } from '../../common/validation/optional-nullable.decorator.js';
import type { WebhookEndpoint } from '../webhook-endpoint.entity.js';

const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

export class CreateWebhookEndpointDto {
  /** Where events are POSTed (http or https). */
  @IsUrl(HTTP_URL) @MaxLength(2048) url: string;
  @OptionalNullable() @IsString() @MaxLength(500) description?: string | null;
  /** Event types to receive (GET /v1/webhook-event-types); absent or null: all. */
  @OptionalNullable() @IsArray() @ArrayMaxSize(50) @IsString({ each: true }) @MaxLength(50, { each: true }) eventTypes?: string[] | null;
  /** Channels whose events to receive; absent or null: all. Events that belong to no channel are not filtered by it. */
  @OptionalNullable() @IsArray() @ArrayMaxSize(100) @IsUUID('all', { each: true }) channelIds?: string[] | null;
  /** At most this many attempts start in any one second (1-1000); more wait. Absent or null: no limit. */
  @OptionalNullable() @IsInt() @Min(1) @Max(1000) rateLimitPerSecond?: number | null;
  /** Events of one conversation (or contact) are delivered one after another, in the order they were written. */
  @IsOptionalNotNull() @IsBoolean() ordered?: boolean;
  /** Up to 10 headers sent with every attempt (no hop-by-hop headers, no `webhook-*`). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, nullable: true })
  @OptionalNullable()
  @IsObject()
  headers?: Record<string, string> | null;
  @IsOptionalNotNull() @IsBoolean() disabled?: boolean;
}

/**
 * Partial update: only the fields given change; null clears the nullable ones and is a 400 for the
 * others (PartialType alone would let it through to their NOT NULL columns).
 */
export class UpdateWebhookEndpointDto extends PartialType(OmitType(CreateWebhookEndpointDto, ['url', 'ordered', 'disabled'] as const)) {
  /** Where events are POSTed (http or https). */
  @IsOptionalNotNull() @IsUrl(HTTP_URL) @MaxLength(2048) url?: string;
  /** Events of one conversation (or contact) are delivered one after another, in the order they were written. */
  @IsOptionalNotNull() @IsBoolean() ordered?: boolean;
  @IsOptionalNotNull() @IsBoolean() disabled?: boolean;
}

export class ListWebhookEndpointsDto extends PagedRequestDto {}

export class WebhookEndpointDto {
  id: string;
  url: string;
  description: string | null;
  eventTypes: string[] | null;
  channelIds: string[] | null;
  rateLimitPerSecond: number | null;
  ordered: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) headers: Record<string, string>;
  disabled: boolean;
  disabledReason: string | null;
  /** ISO 8601 UTC. */
  disabledAt: string | null;
  /** ISO 8601 UTC. */
  creationTime: string;
  /** ISO 8601 UTC. */
  lastModificationTime: string;

  static from(endpoint: WebhookEndpoint): WebhookEndpointDto {
    return {
      id: endpoint.id,
      url: endpoint.url,
      description: endpoint.description,
      eventTypes: endpoint.eventTypes,
      channelIds: endpoint.channelIds,
      rateLimitPerSecond: endpoint.rateLimitPerSecond,
      ordered: endpoint.ordered,
      headers: endpoint.headers,
      disabled: endpoint.disabled,
      disabledReason: endpoint.disabledReason,
      disabledAt: formatTimestamp(endpoint.disabledAt, TimestampFormat.utc),
      creationTime: TimestampFormat.utc(endpoint.creationTime),
      lastModificationTime: TimestampFormat.utc(endpoint.lastModificationTime),
    };
  }
}

/** The endpoint as created: with its signing secret, shown here and by Get Webhook Endpoint Secret only. */
export class CreatedWebhookEndpointDto extends WebhookEndpointDto {
  /** `whsec_…`: verifies the `webhook-signature` of this endpoint's deliveries. */
  secret: string;
}

export class WebhookEndpointSecretDto {
  /** `whsec_…`; after a rotation the new one (the old one keeps signing beside it for 24 h). */
  secret: string;
}

export class TestWebhookEndpointDto {
  /** Any type of the catalog, subscribed or not. */
  @IsString() @MaxLength(50) eventType: string;
}

export class RecoverWebhookEndpointDto {
  /** Deliveries to the endpoint created since then that ended Failed are sent again. */
  @IsIsoDateTime() since: string;
}

export class RecoveredDeliveriesDto {
  count: number;
}
