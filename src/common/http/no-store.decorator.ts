import { Header } from '@nestjs/common';

/**
 * `Cache-Control: no-store` on a successful response that carries a secret (a client secret, a
 * webhook secret, an access token), so no browser, proxy or gateway cache keeps a copy.
 */
export const NoStore = () => Header('Cache-Control', 'no-store');
