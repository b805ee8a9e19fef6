import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { SecretBox } from '../common/crypto/secret-box.js';
import type { ClaimedEndpoint } from './webhook-deliveries.repository.js';

/** The secrets an endpoint's deliveries are signed with, opened once per sealed value (not on every attempt). */
@Injectable()
export class EndpointSecrets {
  private readonly opened = new LRUCache<string, string>({ max: 10_000 });

  constructor(private readonly box: SecretBox) {}

  seal(secret: string): string {
    return this.box.seal(secret);
  }

  open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) this.opened.set(sealed, (secret = this.box.open(sealed)));
    return secret;
  }

  /** The current secret, and the previous one while its 24 h overlap lasts. */
  of(endpoint: Pick<ClaimedEndpoint, 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_expires_at'>): string[] {
    const secrets = [this.open(endpoint.secret_sealed)];
    const previousUntil = endpoint.previous_secret_expires_at ? Date.parse(endpoint.previous_secret_expires_at) : 0;
    if (endpoint.previous_secret_sealed && previousUntil > Date.now()) secrets.push(this.open(endpoint.previous_secret_sealed));
    return secrets;
  }
}
