/**
 * Parser of Usergrid's query language (docs/api.md#queries-and-paging), after Apache Usergrid's
 * QueryFilter.g: `[select * | select a, b.c] [where] condition [order by p [asc|desc], …]`.
 * Precedence is Usergrid's: `not` binds tightest, then `and`, then `or`. Keywords are
 * case-insensitive. Any input either parses or throws a `query_parse` AppError naming the
 * position of the problem; nothing else is ever thrown.
 */
import type { ComparisonOperator, Condition, Literal, OrderKey, PropertyPath, Query } from './ast.js';
import { Lexer, describeToken, syntaxError, type Token } from './tokenize.js';
import type { AppError } from '../../errors.js';

/**
 * Bounds that keep any accepted query compilable: the recursion of this parser and of the
 * compiler stays shallow, and the SQL stays far inside SQLite's expression depth (1000) and
 * bound-parameter (32766) limits.
 */
export const QUERY_LIMITS = {
  conditions: 1000,
  nesting: 32,
  orderKeys: 8,
} as const;

// Words that can never be property names, so that a condition reads one way only. `order` and
// `by` are not among them: `order by` is recognised as a pair, so `order = 1` stays a condition.
const RESERVED = new Set([
  'select',
  'where',
  'from',
  'and',
  'or',
  'not',
  'contains',
  'within',
  'of',
  'eq',
  'lt',
  'lte',
  'gt',
  'gte',
  'asc',
  'desc',
  'true',
  'false',
]);

const OPERATORS: ReadonlyMap<string, ComparisonOperator> = new Map([
  ['=', '='],
  ['eq', '='],
  ['<', '<'],
  ['lt', '<'],
  ['<=', '<='],
  ['lte', '<='],
  ['>', '>'],
  ['gt', '>'],
  ['>=', '>='],
  ['gte', '>='],
]);

const EMPTY_QUERY: Query = { select: null, where: null, orderBy: [] };

/** Parses `ql`; `undefined`, empty or blank means every entity in the default order. */
export function parseQuery(ql: string | undefined): Query {
  if (ql === undefined || ql.trim() === '') return EMPTY_QUERY;
  return new Parser(ql).parseQuery();
}

class Parser {
  private readonly lexer: Lexer;
  private readonly lookahead: Token[] = [];
  private depth = 0;
  private conditionCount = 0;

  constructor(private readonly source: string) {
    this.lexer = new Lexer(source);
  }

  parseQuery(): Query {
    let select: PropertyPath[] | null = null;
    if (this.atKeyword('select')) {
      this.take();
      select = this.parseSelect();
    }
    let where: Condition | null = null;
    if (this.atKeyword('where')) {
      this.take();
      where = this.parseOr();
    } else if (this.peek().kind !== 'end' && !this.atOrderBy()) {
      where = this.parseOr();
    }
    let orderBy: OrderKey[] = [];
    if (this.atOrderBy()) {
      this.take();
      this.take();
      orderBy = this.parseOrderBy();
    }
    const rest = this.peek();
    if (rest.kind !== 'end') {
      throw this.unexpected(rest, where ? "expected 'and', 'or', 'order by' or the end of the query" : undefined);
    }
    return { select, where, orderBy };
  }

  /** `*` (returns null) or `a, b.c, …`. */
  private parseSelect(): PropertyPath[] | null {
    const token = this.peek();
    if (token.kind === 'symbol' && token.text === '*') {
      this.take();
      return null;
    }
    const properties = [this.parseProperty('expected * or property names')];
    while (this.atSymbol(',')) {
      this.take();
      properties.push(this.parseProperty('expected a property name'));
    }
    return properties;
  }

  private parseOrderBy(): OrderKey[] {
    const keys: OrderKey[] = [];
    for (;;) {
      const token = this.peek();
      const property = this.parseProperty('expected a property name');
      if (keys.length === QUERY_LIMITS.orderKeys) {
        throw syntaxError(this.source, token.start, `too many order by properties`, `at most ${QUERY_LIMITS.orderKeys}`);
      }
      let direction: OrderKey['direction'] = 'asc';
      if (this.atKeyword('asc') || this.atKeyword('desc')) direction = this.take().text.toLowerCase() === 'asc' ? 'asc' : 'desc';
      keys.push({ property, direction });
      if (!this.atSymbol(',')) return keys;
      this.take();
    }
  }

  private parseOr(): Condition {
    const conditions = [this.parseAnd()];
    while (this.atKeyword('or')) {
      this.take();
      conditions.push(this.parseAnd());
    }
    return conditions.length === 1 ? conditions[0] : { kind: 'or', conditions };
  }

  private parseAnd(): Condition {
    const conditions = [this.parseNot()];
    while (this.atKeyword('and')) {
      this.take();
      conditions.push(this.parseNot());
    }
    return conditions.length === 1 ? conditions[0] : { kind: 'and', conditions };
  }

  private parseNot(): Condition {
    if (!this.atKeyword('not')) return this.parsePrimary();
    this.enter(this.take());
    const condition = this.parseNot();
    this.depth--;
    return { kind: 'not', condition };
  }

  private parsePrimary(): Condition {
    if (!this.atSymbol('(')) return this.parseCondition();
    this.enter(this.take());
    const condition = this.parseOr();
    if (!this.atSymbol(')')) throw this.unexpected(this.peek(), "missing ')'");
    this.take();
    this.depth--;
    return condition;
  }

  private parseCondition(): Condition {
    const start = this.peek();
    const property = this.parseProperty('expected a condition');
    if (++this.conditionCount > QUERY_LIMITS.conditions) {
      throw syntaxError(this.source, start.start, 'too many conditions', `at most ${QUERY_LIMITS.conditions}`);
    }
    if (this.atKeyword('contains')) {
      this.take();
      const term = this.take();
      if (term.kind !== 'string') throw this.unexpected(term, "expected a quoted string such as 'word' or 'pre*'");
      const prefix = /\*\s*$/.test(term.value);
      return { kind: 'contains', property, term: prefix ? term.value.replace(/\*\s*$/, '') : term.value, prefix };
    }
    if (this.atKeyword('within')) {
      this.take();
      const meters = this.parseNumber('expected a distance in meters', 0, Infinity, 'a distance is not negative');
      this.expectKeyword('of');
      const latitude = this.parseNumber('expected a latitude', -90, 90, 'latitude is from -90 to 90');
      if (!this.atSymbol(',')) throw this.unexpected(this.peek(), "expected ',' between latitude and longitude");
      this.take();
      const longitude = this.parseNumber('expected a longitude', -180, 180, 'longitude is from -180 to 180');
      return { kind: 'within', property, meters, latitude, longitude };
    }
    const operatorToken = this.take();
    const operator = operatorToken.kind === 'symbol' || operatorToken.kind === 'word' ? OPERATORS.get(operatorToken.text.toLowerCase()) : undefined;
    if (operator === undefined) {
      throw this.unexpected(operatorToken, 'expected an operator: = < <= > >= eq lt lte gt gte contains within');
    }
    const value = this.parseLiteral();
    if (operator === '=' && value.kind === 'string' && value.value.endsWith('*')) {
      return { kind: 'prefix', property, prefix: value.value.slice(0, -1) };
    }
    return { kind: 'compare', property, operator, value };
  }

  private parseLiteral(): Literal {
    const token = this.take();
    switch (token.kind) {
      case 'string':
        return { kind: 'string', value: token.value };
      case 'number':
        return { kind: 'number', value: token.value };
      case 'uuid':
        return { kind: 'uuid', value: token.value };
      case 'word': {
        const word = token.text.toLowerCase();
        if (word === 'true' || word === 'false') return { kind: 'boolean', value: word === 'true' };
        throw this.unexpected(token, `strings are written in single quotes: '${token.text}'`);
      }
      default:
        throw this.unexpected(token, 'expected a value: a quoted string, number, true, false or uuid');
    }
  }

  private parseNumber(expected: string, min: number, max: number, range: string): number {
    const token = this.take();
    if (token.kind !== 'number') throw this.unexpected(token, expected);
    if (token.value < min || token.value > max) {
      throw syntaxError(this.source, token.start, `${token.text} is out of range`, range);
    }
    return token.value;
  }

  private parseProperty(expected: string): PropertyPath {
    const token = this.peek();
    if (token.kind !== 'word' || RESERVED.has(token.text.toLowerCase()) || this.atOrderBy()) {
      throw this.unexpected(token, expected);
    }
    this.take();
    return token.text;
  }

  private expectKeyword(word: string): void {
    if (!this.atKeyword(word)) throw this.unexpected(this.peek(), `expected '${word}'`);
    this.take();
  }

  /** Counts one level of `(` or `not`, so no input can exhaust the stack. */
  private enter(token: Token): void {
    if (++this.depth > QUERY_LIMITS.nesting) {
      throw syntaxError(this.source, token.start, 'conditions nested too deeply', `at most ${QUERY_LIMITS.nesting} levels`);
    }
  }

  private unexpected(token: Token, hint?: string): AppError {
    return syntaxError(this.source, token.start, `unexpected ${describeToken(token)}`, hint);
  }

  private peek(offset = 0): Token {
    while (this.lookahead.length <= offset) this.lookahead.push(this.lexer.next());
    return this.lookahead[offset];
  }

  private take(): Token {
    const token = this.peek();
    this.lookahead.shift();
    return token;
  }

  private atKeyword(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'word' && token.text.toLowerCase() === word;
  }

  private atSymbol(symbol: string): boolean {
    const token = this.peek();
    return token.kind === 'symbol' && token.text === symbol;
  }

  /** `order by` starts the order clause; `order` alone is an ordinary property name. */
  private atOrderBy(): boolean {
    return this.atKeyword('order') && this.atKeyword('by', 1);
  }
}
