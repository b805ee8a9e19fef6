import { checkLiteralHost, ForbiddenAddressError } from './ssrf-guard.js';
import { InvalidWebhookTarget, PrivateWebhookTarget } from './webhooks.errors.js';

/** RFC 6761 §6.3: `localhost` and its subdomains always name the loopback interface. */
const LOCALHOST = /(^|\.)localhost\.?$/i;

/**
 * Save-time check of a webhook URL given by a caller (a channel's `webhookUrl` or
 * `postCallWebhookUrl`, a call's `webhookUrl`). When private networks are not allowed, a host that
 * is a non-public IP literal, or `localhost`, is refused now with a 400 naming `member`, rather than
 * accepted and refused at every delivery. Other names are judged when delivering, on the address
 * connected to (ssrf-guard), since what they resolve to can change after they are saved.
 */
export function assertWebhookTarget(url: string, member: string, allowPrivateNetworks: boolean): void {
  if (allowPrivateNetworks) return;
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    throw InvalidWebhookTarget(url);
  }
  if (LOCALHOST.test(hostname)) throw PrivateWebhookTarget(member, url, 'loopback');
  try {
    checkLiteralHost(hostname, false);
  } catch (err) {
    if (err instanceof ForbiddenAddressError) throw PrivateWebhookTarget(member, url, err.range);
    throw err;
  }
}
