import { v7 as uuidv7, validate } from 'uuid';

/** Time-ordered UUIDs (RFC 9562 v7): ids sort by creation, so they break ties in `created`. */
export function newUuid(): string {
  return uuidv7();
}

export function isUuid(text: string): boolean {
  return validate(text);
}
