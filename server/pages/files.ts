/**
 * The one way page files (assets/, locales/) are read, so a packaged build can serve them from
 * somewhere else by swapping this reader. Files are read once and kept.
 */
import { readFileSync } from 'node:fs';

export type PageFileReader = (relativePath: string) => Buffer;

const fromDisk: PageFileReader = (relativePath) => readFileSync(new URL(`./${relativePath}`, import.meta.url));

let reader: PageFileReader = fromDisk;
const cache = new Map<string, Buffer>();

/** Replaces where page files come from (the single-binary build embeds them). */
export function setPageFileReader(next: PageFileReader): void {
  reader = next;
  cache.clear();
}

/** A file below server/pages/, e.g. `assets/style.css` or `locales/de.json`. */
export function readPageFile(relativePath: string): Buffer {
  let content = cache.get(relativePath);
  if (!content) {
    content = reader(relativePath);
    cache.set(relativePath, content);
  }
  return content;
}
