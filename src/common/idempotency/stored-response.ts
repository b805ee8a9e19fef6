import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The `Idempotency-Key` a request claimed, as the write paths beneath its handler see it (the
 * interceptor runs the handler inside {@link runIdempotent}).
 */
interface ClaimedKey {
  workspaceId: string;
  key: string;
  /** The claim's token: the key's record is this request's only while it carries it. */
  token: string;
  /** The status the route answers with (its `@HttpCode`). */
  status: number;
  /** The write stored the response with itself: the interceptor has nothing left to store. */
  stored: boolean;
}

const claimed = new AsyncLocalStorage<ClaimedKey>();

/** Runs `work` (the handler) with the claimed key visible to {@link PendingResponse.of}. */
export function runIdempotent<T>(
  scope: { workspaceId: string; key: string; token: string; status: number },
  work: () => T,
): { value: T; stored: () => boolean; close: () => void } {
  const context: ClaimedKey = { ...scope, stored: false };
  return {
    value: claimed.run(context, work),
    stored: () => context.stored,
    // Timers started by the handler keep its async context after the request: nothing may store into the key then.
    close: () => {
      context.stored = true;
    },
  };
}

/**
 * The response of an idempotent request, stored by the write that makes the request's change, in
 * the same statement or transaction (API.md §1). A process that dies after that commit but before
 * the interceptor could store the response (kill -9) therefore never leaves a committed send's key
 * looking abandoned: the key already holds the response, and a retry replays it instead of
 * sending again.
 *
 * `fill` names the fields of `body` whose values only the write itself knows (an id the statement
 * finds), each mapped to the name of the write's value (`{ contactId: 'contactId' }`); the body is
 * built with placeholders there and completed by the write.
 */
export class PendingResponse {
  private constructor(
    private readonly context: ClaimedKey,
    readonly body: Record<string, unknown>,
    readonly fill: Readonly<Record<string, string>>,
  ) {}

  /**
   * The response to store for the request being handled, when it came with an `Idempotency-Key`
   * of `workspaceId` whose response is not stored yet; undefined otherwise (`body` is then not built).
   */
  static of(workspaceId: string, body: () => object, fill: Record<string, string> = {}): PendingResponse | undefined {
    const context = claimed.getStore();
    if (!context || context.stored || context.workspaceId !== workspaceId) return undefined;
    return new PendingResponse(context, { ...body() }, fill);
  }

  get workspaceId(): string {
    return this.context.workspaceId;
  }

  get key(): string {
    return this.context.key;
  }

  get token(): string {
    return this.context.token;
  }

  get status(): number {
    return this.context.status;
  }

  /** The body with the write's values filled in. */
  complete(values: Record<string, unknown>): Record<string, unknown> {
    const body = { ...this.body };
    for (const [field, name] of Object.entries(this.fill)) body[field] = values[name];
    return body;
  }

  /** The write stored the response (its transaction or statement then committed, or the request fails and frees the key). */
  stored(): void {
    this.context.stored = true;
  }
}

/** What {@link storeResponseCte} gives a statement to add. */
export interface ResponseCte {
  /** `idempotent_response AS (UPDATE …)`, to append to the statement's `WITH` list. */
  cte: string;
  /**
   * A select-list item, true when the response was stored (`idempotent_response_stored`); when the
   * change was made but the key is another request's now, it raises instead (SQLSTATE MSI01, see
   * `pgError`'s `idempotency-claim-lost`), and the statement's change is undone.
   */
  storedColumn: string;
  /** The CTE's parameters, numbered from the `firstParam` given. */
  params: unknown[];
  /** Reads a returned row's {@link storedColumn} and marks the response stored. */
  settle(row: Record<string, unknown> | undefined): void;
}

/**
 * The data-modifying CTE that stores `response` in the statement that makes the request's change,
 * for the hottest paths, which write in one statement (no extra round trip): it updates the key's
 * in-flight record once per row of `from` (the CTE of the change; no row, nothing stored).
 * `workspaceId` is the statement's workspace parameter (`$1`); `values` maps the names in
 * `response.fill` to SQL expressions of the statement (`event.contact_id`). Undefined without a
 * response, so a request without a key runs the statement unchanged.
 */
export function storeResponseCte(
  response: PendingResponse | undefined,
  at: { workspaceId: string; from: string; firstParam: number; values?: Record<string, string> },
): ResponseCte | undefined {
  if (!response) return undefined;
  const [status, body, key, token] = [at.firstParam, at.firstParam + 1, at.firstParam + 2, at.firstParam + 3];
  const filled = Object.entries(response.fill).map(([field, name]) => {
    const expression = at.values?.[name];
    if (!expression) throw new Error(`storeResponseCte: no value for '${name}'`);
    return `'${field.replace(/'/g, "''")}', ${expression}`;
  });
  const bodySql = filled.length > 0 ? `$${body}::jsonb || jsonb_build_object(${filled.join(', ')})` : `$${body}::jsonb`;
  return {
    cte: `idempotent_response AS (
      UPDATE idempotency_records ir SET response_status = $${status}::smallint, response_body = ${bodySql}
        FROM ${at.from}
       WHERE ir.workspace_id = ${at.workspaceId}::uuid AND ir.key = $${key}::varchar AND ir.claim_token = $${token}::uuid
         AND ir.response_status IS NULL
      RETURNING 1)`,
    // Evaluated once per row of the change: a change made while the key is no longer this request's raises, and the statement undoes it.
    storedColumn: 'idempotency_claim_held(EXISTS (SELECT 1 FROM idempotent_response)) AS idempotent_response_stored',
    params: [response.status, JSON.stringify(response.body), response.key, response.token],
    settle: (row) => {
      if (row?.idempotent_response_stored === true) response.stored();
    },
  };
}
