import { ApiProperty } from '@nestjs/swagger';
import { RateLimitPolicy } from '../rate-limit-policy.js';

export class RateLimitStatusDto {
  @ApiProperty({ enum: RateLimitPolicy, enumName: 'RateLimitPolicy' }) name: RateLimitPolicy;
  /** Requests allowed per window. */
  limit: number;
  /** Length of the window in seconds. */
  windowSeconds: number;
  /** Requests left in the current window. */
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}
