/**
 * The lexer of the query language. Tokens are pulled one at a time by the parser, so the first
 * problem reported is always the leftmost one. Every failure is a `query_parse` AppError whose
 * message names the 1-based character position (docs/api.md#queries-and-paging).
 */
import { QueryParse, type AppError } from '../../errors.js';

export type SymbolText = '(' | ')' | ',' | '*' | '=' | '<' | '<=' | '>' | '>=';

interface TokenBase {
  /** The source text of the token, for error messages. */
  readonly text: string;
  /** UTF-16 offset of the token in the query. */
  readonly start: number;
}

export type Token =
  // Identifiers, dotted property paths and keywords (keywords are recognised by the parser).
  | (TokenBase & { readonly kind: 'word' })
  | (TokenBase & { readonly kind: 'string'; readonly value: string })
  | (TokenBase & { readonly kind: 'number'; readonly value: number })
  | (TokenBase & { readonly kind: 'uuid'; readonly value: string })
  | (TokenBase & { readonly kind: 'symbol'; readonly text: SymbolText })
  | (TokenBase & { readonly kind: 'end' });

const WHITESPACE = /\s+/y;
// Checked before numbers and words: a UUID may start with digits or with letters.
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![A-Za-z0-9_.-])/iy;
const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const SYMBOLS: readonly SymbolText[] = ['<=', '>=', '(', ')', ',', '*', '=', '<', '>'];
// The escapes of Usergrid's string literal (Java's), plus \uXXXX handled in readString.
const ESCAPES: ReadonlyMap<string, string> = new Map([
  ["'", "'"],
  ['"', '"'],
  ['\\', '\\'],
  ['/', '/'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);
const HEX4 = /[0-9a-fA-F]{4}/y;

/** 1-based position in characters (code points), which is what a person counts. */
export function positionAt(source: string, index: number): number {
  let position = 1;
  for (let i = 0; i < index; i++) {
    const unit = source.charCodeAt(i);
    // A surrogate pair is one character.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < index) {
      const next = source.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    position++;
  }
  return position;
}

export function syntaxError(source: string, index: number, problem: string, hint?: string): AppError {
  const description = `${problem} at position ${positionAt(source, index)}${hint ? ` (${hint})` : ''}`;
  return QueryParse(description, { fields: { ql: description } });
}

/** How a token is named in "unexpected …" messages; long tokens are shortened. */
export function describeToken(token: Token): string {
  if (token.kind === 'end') return 'end of query';
  const text = [...token.text];
  return `'${text.length > 24 ? `${text.slice(0, 24).join('')}…` : token.text}'`;
}

export class Lexer {
  private index = 0;

  constructor(readonly source: string) {}

  next(): Token {
    const source = this.source;
    this.index = matchAt(WHITESPACE, source, this.index)?.end ?? this.index;
    const start = this.index;
    if (start >= source.length) return { kind: 'end', text: '', start };

    const uuid = matchAt(UUID, source, start);
    if (uuid) return this.advance({ kind: 'uuid', text: uuid.text, value: uuid.text.toLowerCase(), start });

    const number = matchAt(NUMBER, source, start);
    if (number) {
      const value = Number(number.text);
      if (!Number.isFinite(value)) throw syntaxError(source, start, `number '${number.text}' out of range`);
      return this.advance({ kind: 'number', text: number.text, value, start });
    }

    const word = matchAt(WORD, source, start);
    if (word) return this.advance({ kind: 'word', text: word.text, start });

    if (source[start] === "'") return this.readString(start);

    const symbol = SYMBOLS.find((candidate) => source.startsWith(candidate, start));
    if (symbol) return this.advance({ kind: 'symbol', text: symbol, start });

    throw this.unexpectedCharacter(start);
  }

  private advance<T extends Token>(token: T): T {
    this.index = token.start + token.text.length;
    return token;
  }

  private readString(start: number): Token {
    const source = this.source;
    let value = '';
    let i = start + 1;
    while (i < source.length) {
      const char = source[i];
      if (char === "'") {
        this.index = i + 1;
        return { kind: 'string', text: source.slice(start, i + 1), value, start };
      }
      if (char !== '\\') {
        value += char;
        i++;
        continue;
      }
      const escape = source[i + 1];
      if (escape === 'u') {
        const hex = matchAt(HEX4, source, i + 2);
        if (!hex) throw syntaxError(source, i, 'invalid unicode escape', 'write \\u followed by 4 hex digits');
        value += String.fromCharCode(parseInt(hex.text, 16));
        i += 6;
        continue;
      }
      if (escape === undefined) break;
      const replacement = ESCAPES.get(escape);
      if (replacement === undefined) {
        throw syntaxError(source, i, `unknown escape '\\${String.fromCodePoint(source.codePointAt(i + 1) ?? 0)}'`);
      }
      value += replacement;
      i += 2;
    }
    throw syntaxError(source, start, 'unterminated string starting', 'close it with a single quote');
  }

  private unexpectedCharacter(start: number): AppError {
    const source = this.source;
    if (source.startsWith('!=', start)) return syntaxError(source, start, "unexpected '!='", "write 'not a = b'");
    if (source[start] === '"') return syntaxError(source, start, `unexpected '"'`, 'strings use single quotes');
    const char = String.fromCodePoint(source.codePointAt(start) ?? 0);
    return syntaxError(source, start, `unexpected '${char}'`);
  }
}

function matchAt(pattern: RegExp, source: string, index: number): { text: string; end: number } | null {
  pattern.lastIndex = index;
  const match = pattern.exec(source);
  return match && match[0].length > 0 ? { text: match[0], end: index + match[0].length } : null;
}
