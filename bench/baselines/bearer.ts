// The token check every baseline does, as the API does it: HS256, our issuer, the workspace claim.
import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';

// A KeyObject, as the API uses: a string secret is first tried as a PEM key on every call.
let key: KeyObject | undefined;

export interface BearerClaims {
  sub: string;
  workspace_id: string;
}

/** The claims of a valid `Authorization: Bearer <jwt>`, or undefined. */
export function verifyBearer(header: string | undefined): BearerClaims | undefined {
  try {
    return jwt.verify(
      (header ?? '').replace(/^Bearer /, ''),
      (key ??= createSecretKey(Buffer.from(process.env.JWT_SECRET as string, 'utf8'))),
      {
        algorithms: ['HS256'],
        issuer: 'messaging-service',
      },
    ) as BearerClaims;
  } catch {
    return undefined;
  }
}
