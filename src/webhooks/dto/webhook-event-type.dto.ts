import { ApiProperty } from '@nestjs/swagger';

export class WebhookEventTypeDto {
  /** The `type` of the payload and the `webhook-event` header. */
  type: string;
  description: string;
  /** JSON Schema (2020-12) of the whole payload `{ type, timestamp, workspaceId, data }`. */
  @ApiProperty({ type: 'object', additionalProperties: true }) schema: Record<string, unknown>;
}
