/** How a failure maps to HTTP; services choose a kind, never a status code. */
export enum ErrorKind {
  Validation = 'validation',
  Unauthenticated = 'unauthenticated',
  Forbidden = 'forbidden',
  NotFound = 'not-found',
  Conflict = 'conflict',
  PayloadTooLarge = 'payload-too-large',
  UnsupportedMediaType = 'unsupported-media-type',
  Unprocessable = 'unprocessable',
  RateLimited = 'rate-limited',
  /** A dependency the operation needs (object storage) does not answer; worth retrying later. */
  Unavailable = 'unavailable',
}

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  [ErrorKind.Validation]: 400,
  [ErrorKind.Unauthenticated]: 401,
  [ErrorKind.Forbidden]: 403,
  [ErrorKind.NotFound]: 404,
  [ErrorKind.Conflict]: 409,
  [ErrorKind.PayloadTooLarge]: 413,
  [ErrorKind.UnsupportedMediaType]: 415,
  [ErrorKind.Unprocessable]: 422,
  [ErrorKind.RateLimited]: 429,
  [ErrorKind.Unavailable]: 503,
};

export interface ValidationErrorItem {
  message: string;
  members: string[];
}

export interface DomainErrorOptions {
  details?: string | null;
  validationErrors?: ValidationErrorItem[];
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
}

/**
 * A failure the caller can act on. `code` is stable (`Contacts:PropertyRequired`), `message` is
 * shown to people. The global filter turns it into the error envelope of API.md §1.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly kind: ErrorKind,
    readonly options: DomainErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  get status(): number {
    return STATUS_BY_KIND[this.kind];
  }
}

export class ValidationError extends DomainError {
  constructor(code: string, message: string, options?: DomainErrorOptions) {
    super(code, message, ErrorKind.Validation, options);
  }
}

export class NotFoundError extends DomainError {
  constructor(code: string, message: string) {
    super(code, message, ErrorKind.NotFound);
  }
}

export class ConflictError extends DomainError {
  constructor(code: string, message: string) {
    super(code, message, ErrorKind.Conflict);
  }
}
