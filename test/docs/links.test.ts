/**
 * Code comments cite the repository's own docs (`docs/api.md#errors`), never anything outside
 * it: every cited page exists and has the cited heading, and no comment names a document that
 * is not in the repository.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CODE_DIRS = ['src', 'server', 'commands', 'bin', 'scripts', 'bench', 'test'];

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : filesUnder(path);
    return /\.(ts|js|cjs|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(page: string): Set<string> {
  return new Set([...readFileSync(page, 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1])));
}

const code = CODE_DIRS.filter((dir) => existsSync(dir)).flatMap(filesUnder);

describe('what code comments cite', () => {
  it('names only pages and headings that exist in docs/', () => {
    const broken: string[] = [];
    for (const file of code) {
      for (const [, page, anchor] of readFileSync(file, 'utf8').matchAll(/\b(docs\/[\w-]+\.md)(?:#([\w-]+))?/g)) {
        if (!existsSync(page)) broken.push(`${file}: ${page}`);
        else if (anchor !== undefined && !anchorsOf(page).has(anchor)) broken.push(`${file}: ${page}#${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names no internal issue or work session: comments say what they mean', () => {
    const numbered = code.filter((file) => /\b[Ii]ssue #?\d+|\b[Ss]ession \d+\b/.test(readFileSync(file, 'utf8')));
    expect(numbered).toEqual([]);
  });

  it('never cites a document outside the repository', () => {
    const outside = code.filter(
      (file) => file !== join('test', 'docs', 'links.test.ts') && /CONTRACT\.md|ARCHITECTURE\.md|PITFALLS\.md|\bthe seed\b/.test(readFileSync(file, 'utf8')),
    );
    expect(outside).toEqual([]);
  });
});
