import { v7 as uuidv7, validate as isUuid } from 'uuid';

/** A new time-ordered identifier (UUID v7): index-friendly and sortable by creation. */
export function newId(): string {
  return uuidv7();
}

export { isUuid };
