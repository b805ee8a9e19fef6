import { DomainError, ErrorKind, NotFoundError } from '../common/errors/domain-error.js';

export const MediaNotFound = () => new NotFoundError('Media:NotFound', 'The media file was not found.');

export const STORAGE_UNAVAILABLE = 'Storage:Unavailable';

/** Object storage refused or did not answer; nothing was stored, and the same request may succeed later. */
export const StorageUnavailable = () =>
  new DomainError(STORAGE_UNAVAILABLE, 'Media storage is unavailable; try again later.', ErrorKind.Unavailable, {
    headers: { 'retry-after': '5' },
  });

export const isStorageUnavailable = (err: unknown): err is DomainError => err instanceof DomainError && err.code === STORAGE_UNAVAILABLE;
