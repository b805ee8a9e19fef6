// The token check every baseline does, as the API does it: HS256, our issuer, the workspace claim.
import jwt from 'jsonwebtoken';

export interface BearerClaims {
  sub: string;
  workspace_id: string;
}

/** The claims of a valid `Authorization: Bearer <jwt>`, or undefined. */
export function verifyBearer(header: string | undefined): BearerClaims | undefined {
  try {
    return jwt.verify((header ?? '').replace(/^Bearer /, ''), process.env.JWT_SECRET as string, {
      algorithms: ['HS256'],
      issuer: 'messaging-service',
    }) as BearerClaims;
  } catch {
    return undefined;
  }
}
