/**
 * The one way page files (assets/, locales/) are read: through the runtime assets, so the
 * single executable serves them from its blob. Files are read once and kept.
 */
import { readAsset } from '../../src/runtime/assets.js';

const cache = new Map<string, Buffer>();

/** A file below server/pages/, e.g. `assets/style.css` or `locales/de.json`. */
export function readPageFile(relativePath: string): Buffer {
  let content = cache.get(relativePath);
  if (!content) {
    content = readAsset(`server/pages/${relativePath}`);
    cache.set(relativePath, content);
  }
  return content;
}
