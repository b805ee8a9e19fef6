import { randomBytes } from 'node:crypto';

/** How long a rotated-out webhook secret keeps signing beside the new one, so receivers can switch over. */
export const WEBHOOK_SECRET_ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** A new Standard Webhooks signing secret: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}
