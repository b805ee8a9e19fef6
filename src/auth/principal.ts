import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** Who is calling: a service account acting for exactly one workspace. */
export interface Principal {
  serviceAccountId: string;
  workspaceId: string;
  scopes: string[];
  /** The service account's name, shown as the author of notes. */
  name?: string;
}

/** Who a change is recorded as: a service account, or the service itself (null id) for provider-driven changes. */
export interface Actor {
  workspaceId: string;
  serviceAccountId: string | null;
  name?: string;
}

/** The workspace of the bearer token; every workspace-scoped query filters by it. */
export const CurrentWorkspace = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string => ctx.switchToHttp().getRequest<{ user: Principal }>().user.workspaceId,
);

export const CurrentPrincipal = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): Principal => ctx.switchToHttp().getRequest<{ user: Principal }>().user,
);
