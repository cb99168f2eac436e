/**
 * Reads pages of entities with the Usergrid query language (src/data/query/): a collection, or
 * the entities at the other end of a relation. Keyset cursors (query/cursor.ts) keep paging
 * correct while entities come and go; `limit` defaults to 10 and is clamped to 1000
 * (docs/api.md#queries-and-paging).
 */
import { and, eq, getTableColumns, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { SQLiteColumn } from 'drizzle-orm/sqlite-core';
import { clientOf, dialectOf, type Tx, schemaOf } from '../db/open.js';
import { parseLimit } from './query/limit.js';
import { compileQuery, encodeCursor, parseQuery, type EntityRecord, type PropertyPath, type Query } from './query/index.js';
import type { CompiledQuery, Narrowed } from './query/compile.js';
import { compareEntities } from './query/evaluate.js';
import type { IndexOrder } from './query/index-order.js';
import { readInIndexOrder } from './read-in-index-order.js';
import { readInCreatedOrder, type CreatedOrderRead } from './read-in-created-order.js';
import { propertyPathsOf } from './query/property-index.js';
import { isUnreadableJsonError, skippingUnreadable, unreadableProperties, type EntityRow } from '../db/entity-store.js';
import { countingRows, type Explanation, type Statement } from '../db/explain.js';
import { sqlOf } from '../db/run.js';
import { findUnindexedPaths, isPropertyIndexComplete } from '../db/property-index-store.js';
import type { Logger } from '../logger.js';
import type { RelationView } from './relations.js';
import { paramsOf, shapeCache, shapeOf, shapeStatement, type QueryShape, type ShapedStatement } from './query-shapes.js';

export type EntityScope =
  { readonly kind: 'collection'; readonly collection: string } | { readonly kind: 'related'; readonly uuid: string; readonly view: RelationView };

export interface FindOptions {
  readonly ql?: string;
  readonly limit?: string;
  readonly cursor?: string;
  /** Where a query that had to skip unreadable stored entities says so. */
  readonly logger?: Pick<Logger, 'warn'>;
  /** Say how the database found the entities (docs/api.md#explain). */
  readonly explain?: boolean;
}

export interface EntityPage {
  readonly rows: EntityRow[];
  readonly cursor?: string;
  /** The query's select list for projecting each entity; null for all properties. */
  readonly select: readonly PropertyPath[] | null;
  /** With `explain`: the index that found the entities and the rows read. */
  readonly explain?: Explanation;
}

/** The entity as the query language sees it: columns plus properties. */
export function entityRecord(row: EntityRow): EntityRecord {
  return { ...row.properties, uuid: row.uuid, type: row.type, created: row.created, modified: row.modified };
}

function scopeCondition(tx: Tx, appUuid: string, scope: EntityScope): SQL | undefined {
  const { connections, entities } = schemaOf(tx);
  if (scope.kind === 'collection') return and(eq(entities.appUuid, appUuid), eq(entities.collection, scope.collection));
  const { view, uuid } = scope;
  const anchor = view.direction === 'out' ? connections.sourceUuid : connections.targetUuid;
  return and(
    eq(anchor, uuid),
    eq(connections.relation, view.relation),
    eq(entities.appUuid, appUuid),
    view.collection === undefined ? undefined : eq(entities.collection, view.collection),
  );
}

/** Entities of the scope (joined to their connections for a relation), selecting `columns`. */
function fromScope<Columns extends Record<string, SQLiteColumn>>(tx: Tx, scope: EntityScope, columns: Columns) {
  const { connections, entities } = schemaOf(tx);
  const base = tx.select(columns).from(entities);
  return scope.kind === 'collection'
    ? base
    : base.innerJoin(connections, eq(scope.view.direction === 'out' ? connections.targetUuid : connections.sourceUuid, entities.uuid));
}

/** The statement reading a page: the entities of the scope meeting `condition`, in the query's order, one more than `limit`. */
function selectPage(tx: Tx, scope: EntityScope, condition: SQL | undefined, orderBy: SQL, limit: number) {
  const { entities } = schemaOf(tx);
  return fromScope(tx, scope, getTableColumns(entities))
    .where(condition)
    .orderBy(orderBy)
    .limit(limit + 1);
}

// How many unreadable entities a warning names.
const NAMED_IN_WARNING = 10;

/**
 * Names, in a warning, the entities of the scope whose stored JSON the database cannot read
 * (entity-store.ts, skippingUnreadable): written by an older version, they are left as they are
 * for an operator to repair or delete (a deep one is still read whole by uuid).
 */
async function reportUnreadable(tx: Tx, appUuid: string, scope: EntityScope, logger: FindOptions['logger']): Promise<void> {
  const { entities } = schemaOf(tx);
  const rows = await fromScope(tx, scope, { uuid: entities.uuid })
    .where(and(scopeCondition(tx, appUuid, scope), unreadableProperties()))
    .limit(NAMED_IN_WARNING);
  const where = scope.kind === 'collection' ? { collection: scope.collection } : { entity: scope.uuid, relation: scope.view.relation };
  logger?.warn(
    { app: appUuid, ...where, skipped: rows.map((row) => row.uuid) },
    'a query skipped stored entities whose JSON the database cannot read (nested too deep or malformed)',
  );
}

/** A narrowing chosen (chooseNarrowing), and whether its candidates are read in created order (read-in-created-order.ts) rather than all. */
interface Choice<N> {
  readonly narrowing: N;
  readonly inCreatedOrder: boolean;
  /** Whether its candidates were counted and found few: read then from them, whatever PostgreSQL's planner believes (`fewScope`). */
  readonly counted: boolean;
}

/**
 * Which of the property index's ways to narrow the query to take (compile.ts `narrowed`), or none.
 * SQLite: the cheapest, its candidates counted up to BROAD of each; none when every one has
 * that many, as reading the collection in created order — or in the order of the property the
 * query sorts by, through the index — then stops after a page sooner (`walksInOrder`:
 * docs/design.md#the-property-index: `color = 'red'` over a third of 100,000 entities took
 * 119 ms through its candidates and 0.4 ms in created order; counting up to BROAD takes about
 * 0.1 ms). A narrowing whose candidates can be put in the query's created order from their index
 * alone (`inCreatedOrder`: the word index's, `modified`'s) reads only a page of them, and costs the
 * ordering of them all, ORDERED_PER_READ to the price of an entity read: it is counted up to
 * ORDERED_BROAD (docs/design.md#the-word-index). Counts are remembered a while on either
 * database (`rememberedCount`). PostgreSQL: as SQLite when the page walks an order. Its
 * planner misjudges the candidates there, as its statistics of the index's values are of every
 * path together: it took `city = 'Rome'`, 10,000 of 100,000 people, for 610 and read and sorted
 * them all, 60 ms where the collection newest first took 0.2; `age >= 9990`, 10 of 10,000, for
 * 616, and walked the whole collection (docs/benchmarks.md#broad-equalities-on-postgresql).
 * Otherwise a single one whose candidates its planner can estimate (`estimated`: an equality's) and
 * will read all of, as it is, the planner weighing it against the collection by statistics; the
 * others counted as on SQLite: several (the parts of an `and`), since the planner is given only the
 * one taken, keeping the first it can estimate when each has BROAD or more; one it cannot estimate
 * (a range's, a prefix's, the location index's, which it takes for 0.5% of any collection: 90
 * candidates among a million read the collection in 872 ms;
 * docs/benchmarks.md#within-and-contains-on-postgresql). Candidates counted and found few are read
 * from them, whatever the planner believes (`counted`; dialect.ts `filterOnly`, `amongCandidates`).
 */
async function chooseNarrowing<N extends Pick<Narrowed, 'estimated'>>(
  tx: Tx,
  narrowings: readonly N[],
  walksInOrder: boolean,
  countOf: (narrowing: N, upTo: number) => Promise<number>,
  inCreatedOrder: (narrowing: N) => boolean = () => false,
): Promise<Choice<N> | undefined> {
  const planned = dialectOf(tx) !== 'sqlite' && !walksInOrder ? narrowings.filter((narrowing) => narrowing.estimated && !inCreatedOrder(narrowing)) : [];
  if (narrowings.length === 1 && planned.length === 1) return { narrowing: planned[0], inCreatedOrder: false, counted: false };
  let best: { choice: Choice<N>; cost: number } | undefined;
  for (const narrowing of narrowings) {
    const ordered = inCreatedOrder(narrowing);
    const upTo = ordered ? ORDERED_BROAD : BROAD;
    const count = await countOf(narrowing, upTo);
    const cost = ordered ? count / ORDERED_PER_READ : count;
    if (count < upTo && (best === undefined || cost < best.cost)) best = { choice: { narrowing, inCreatedOrder: ordered, counted: true }, cost };
  }
  return best?.choice ?? (planned.length > 0 ? { narrowing: planned[0], inCreatedOrder: false, counted: false } : undefined);
}

/**
 * The number `count` gives for `statement` (a count of candidates, chooseNarrowing): the one it
 * gave within COUNT_REMEMBERED_MS, when it has. On SQLite a count is a statement more per page,
 * cheap alone (about 6 µs for `age = 7` among 10,000 people, 40 µs with the processor's caches
 * emptied between runs, as serving other requests does); remembered, the same query under load
 * cost 4% to 11% less CPU per request (docs/benchmarks.md#counts-remembered-on-sqlite). On
 * PostgreSQL a count is a round trip of its own: sent before every page, it cost a selective
 * query (`age = 7`, 10,000 people, one idp, 50 connections) a third of its rate, 4,268, 4,566,
 * 2,866 → 2,813, 2,925, 2,137 req/s (docs/benchmarks.md#broad-candidates-on-postgresql);
 * remembered, it kept its rate (9,786–11,308 req/s before, 9,942–11,155 after), and a value not
 * asked within COUNT_REMEMBERED_MS pays the round trip (a third of the rate where every request
 * asked another, docs/benchmarks.md#broad-equalities-on-postgresql) unless its first page counts
 * and reads in one statement (`countingAndReadingFew`). One remembered a while past a change only
 * slows a page: it chooses how to read, and the query's condition decides what is read.
 */
async function rememberedCount(tx: Tx, keyOf: () => string, count: () => Promise<number>): Promise<number> {
  let counts = rememberedCounts.get(clientOf(tx));
  if (counts === undefined) rememberedCounts.set(clientOf(tx), (counts = new Map()));
  const key = keyOf();
  const known = counts.get(key);
  if (known !== undefined && known.until > Date.now()) return known.count;
  const found = await count();
  counts.delete(key);
  if (counts.size >= COUNTS_KEPT) counts.delete(counts.keys().next().value!);
  counts.set(key, { count: found, until: Date.now() + COUNT_REMEMBERED_MS });
  return found;
}

const rememberedCounts = new WeakMap<object, Map<string, { count: number; until: number }>>();
const COUNT_REMEMBERED_MS = 10_000;
const COUNTS_KEPT = 2000;

/** How `narrowing`'s candidates are read in the query's created order (read-in-created-order.ts), when they can be. */
function inCreatedOrderOf(compiled: Pick<CompiledQuery, 'created'>, narrowing: Narrowed): Pick<CreatedOrderRead, 'candidates' | 'order'> | undefined {
  return compiled.created !== null && narrowing.created !== undefined ? { candidates: narrowing.created, order: compiled.created } : undefined;
}

/** The statement counting a narrowing's candidates up to `upTo` (chooseNarrowing). */
const countingCandidates = (candidates: SQL, upTo = BROAD): SQL => sql`SELECT count(*) FROM (SELECT 1 FROM (${candidates}) AS c LIMIT ${upTo}) AS p`;

/**
 * One statement that counts a narrowing's candidates up to BROAD and, when they are fewer, reads
 * the page from them (`fewScope`): its rows are the page's entities, or one row of nulls when it
 * reads none, each with the count (`idp_candidates`). On PostgreSQL a count not remembered
 * (`rememberedCount`) is then no round trip of its own: where every request asked a value not
 * asked before (`score = …`, 10,000 people, 50 connections), the count sent first cost a third of
 * the rate (docs/benchmarks.md#broad-equalities-on-postgresql). The condition on the count is a
 * one-time filter: many candidates read no entity.
 */
function countingAndReadingFew(narrowing: Narrowed, select: (condition: SQL) => SQLWrapper): SQL {
  const page = select(sql`idp_counted.n < ${BROAD} AND ${narrowing.fewScope}`);
  return sql`WITH idp_counted (n) AS MATERIALIZED (${countingCandidates(narrowing.candidates)}) SELECT idp_counted.n AS idp_candidates, p.* FROM idp_counted LEFT JOIN LATERAL (${page}) AS p ON true`;
}

/** The number a count's statement answered, as rows keyed by column name. */
const countOf = (counted: readonly Record<string, unknown>[]): number => Number(Object.values(counted[0])[0]);

async function countCandidates(tx: Tx, narrowing: Narrowed, upTo: number): Promise<number> {
  const statement = countingCandidates(narrowing.candidates, upTo);
  // Rendered once: its text and parameters are the remembered count's key and what is run.
  const { sql: text, params } = sqlOf(tx, statement);
  return rememberedCount(
    tx,
    () => `${text}\u0000${JSON.stringify(params)}`,
    async () => countOf(await clientOf(tx).query(text, params)),
  );
}

/**
 * What the property index can be trusted with, and why not (for `explain`): until the entities
 * stored before the index existed are in it, it may miss some
 * (docs/design.md#filling-the-index-of-an-older-database); and it holds no rows of the paths the
 * collection's settings leave out (docs/api.md#collection-settings).
 */
async function trustedIndex(tx: Tx, appUuid: string, collection: string): Promise<{ complete: boolean; isUnindexed: (path: string) => boolean }> {
  const complete = await isPropertyIndexComplete(tx);
  const unindexed = await findUnindexedPaths(tx, appUuid, collection);
  return { complete, isUnindexed: (path) => unindexed.some((out) => path === out || path.startsWith(`${out}.`)) };
}

/** Why the property index was not used for a query's narrowing or its order: it is still being built, or the settings leave these paths out. */
interface Skipped {
  readonly building?: true;
  readonly leftOut?: readonly string[];
}

/** What `explain` says of the reasons `skipped` (the narrowing's and the order's), if any. */
function skippedText(...skipped: readonly (Skipped | undefined)[]): string | undefined {
  if (skipped.some((reason) => reason?.building)) return 'the property index is still being built';
  const paths = [...new Set(skipped.flatMap((reason) => reason?.leftOut ?? []))];
  return paths.length === 0 ? undefined : `the collection's settings leave ${paths.join(', ')} out of the property index`;
}

/** The narrowings the property index can be trusted with (`trustedIndex`), and why it cannot when it has none of them left. */
async function usableNarrowings<N extends Pick<Narrowed, 'indexes'>>(
  tx: Tx,
  appUuid: string,
  scope: EntityScope,
  narrowings: readonly N[],
): Promise<{ narrowings: readonly N[]; skipped?: Skipped }> {
  if (narrowings.length === 0 || scope.kind !== 'collection') return { narrowings };
  const trusted = await trustedIndex(tx, appUuid, scope.collection);
  let complete = narrowings;
  if (!trusted.complete) {
    // The word and location indexes are filled by their migrations: only the property index waits.
    complete = narrowings.filter((narrowing) => propertyPathsOf(narrowing.indexes).length === 0);
    if (complete.length === 0) return { narrowings: [], skipped: { building: true } };
  }
  const usable = complete.filter((narrowing) => !propertyPathsOf(narrowing.indexes).some(trusted.isUnindexed));
  if (usable.length > 0) return { narrowings: usable };
  return { narrowings: [], skipped: { leftOut: complete.flatMap((narrowing) => propertyPathsOf(narrowing.indexes).filter(trusted.isUnindexed)) } };
}

/** The walk of the property index giving the query's order, when the index can be trusted with it (`trustedIndex`), and why not. */
async function usableOrder(tx: Tx, appUuid: string, scope: EntityScope, order: IndexOrder | null): Promise<{ order?: IndexOrder; skipped?: Skipped }> {
  if (order === null || scope.kind !== 'collection') return {};
  const trusted = await trustedIndex(tx, appUuid, scope.collection);
  if (!trusted.complete) return { skipped: { building: true } };
  if (trusted.isUnindexed(order.path)) return { skipped: { leftOut: [order.path] } };
  return { order: withIndexedNextKeys(order, trusted.isUnindexed) };
}

/** `order` without the walks of next keys (index-order.ts NextKeyWalk) whose paths the index leaves out: those ties are sorted. */
function withIndexedNextKeys(order: IndexOrder, isUnindexed: (path: string) => boolean): IndexOrder {
  const { next } = order;
  if (next === null) return order;
  if (isUnindexed(next.order.path)) return { ...order, next: null };
  const fromCursor = next.fromCursor === null ? null : { ...next.fromCursor, order: withIndexedNextKeys(next.fromCursor.order, isUnindexed) };
  return { ...order, next: { ...next, order: withIndexedNextKeys(next.order, isUnindexed), fromCursor } };
}

// Candidates from which reading the collection in created order is preferred (chooseNarrowing).
const BROAD = 1000;
// The same for candidates that are ordered before their entities are read, and how many of them
// are ordered for the price of one entity read (chooseNarrowing): at a million, ordering 5,000
// took about 3.5 ms, where newest first finds a page of a word 5,000 people have in about 2,200
// entities (4 ms); a candidate ordered 0.7 µs, one read and tested about 12 µs
// (docs/design.md#the-word-index).
const ORDERED_BROAD = 5000;
const ORDERED_PER_READ = 10;

export async function findEntities(tx: Tx, appUuid: string, scope: EntityScope, options: FindOptions): Promise<EntityPage> {
  const query: Query = parseQuery(options.ql);
  const limit = parseLimit(options.limit);
  if (scope.kind === 'collection' && !options.cursor && !options.explain) {
    const page = await findByShape(tx, appUuid, scope, query, limit);
    if (page !== undefined) return page;
  }
  const compiled = compileQuery(query, {
    dialect: dialectOf(tx),
    cursor: options.cursor || undefined,
    index: scope.kind === 'collection' ? { appUuid, collection: scope.collection } : undefined,
  });
  const usable = await usableNarrowings(tx, appUuid, scope, compiled.narrowed);
  const ordered = await usableOrder(tx, appUuid, scope, compiled.ordered);
  const chosen = await chooseNarrowing(
    tx,
    usable.narrowings,
    // Without a narrowing the page walks the property index in the query's order, or the collection in created order.
    ordered.order !== undefined || compiled.created !== null,
    (narrowing, upTo) => countCandidates(tx, narrowing, upTo),
    (narrowing) => inCreatedOrderOf(compiled, narrowing) !== undefined,
  );
  const narrowed = chosen?.narrowing;
  // A few candidates are sorted sooner than the index is walked (chooseNarrowing).
  const walked = narrowed === undefined ? ordered.order : undefined;
  const inCreatedOrder = chosen?.inCreatedOrder === true ? inCreatedOrderOf(compiled, chosen.narrowing) : undefined;
  const counting = options.explain ? countingRows(tx) : undefined;
  // The statements as run, for `explain` only: rendering one again costs about as much as running it.
  const ran: Statement[] | undefined = counting === undefined ? undefined : [];
  const { result: rows, skipped } = await skippingUnreadable((guard) => {
    if (ran !== undefined) ran.length = 0;
    if (inCreatedOrder !== undefined) {
      return readInCreatedOrder(
        tx,
        { ...inCreatedOrder, where: compiled.where, orderBy: compiled.orderBy, count: limit + 1, counting: counting?.condition, ran },
        guard,
      );
    }
    if (walked !== undefined) {
      const compare = compareEntities(query);
      return readInIndexOrder(
        tx,
        {
          order: walked,
          compare: (a, b) => compare(entityRecord(a), entityRecord(b)),
          where: compiled.where,
          orderBy: compiled.orderBy,
          collection: scopeCondition(tx, appUuid, scope),
          count: limit + 1,
          counting: counting?.condition,
          ran,
        },
        guard,
      );
    }
    const select = selectPage(
      tx,
      scope,
      and(counting?.condition, (chosen?.counted ? narrowed?.fewScope : narrowed?.scope) ?? scopeCondition(tx, appUuid, scope), guard(compiled.where)),
      compiled.orderBy,
      limit,
    );
    ran?.push(select.toSQL());
    return select;
  });
  if (skipped) await reportUnreadable(tx, appUuid, scope, options.logger);
  const notUsed = skippedText(usable.skipped, ordered.skipped);
  const explain =
    counting === undefined || ran === undefined
      ? undefined
      : {
          ...(await counting.explain(ran, walked !== undefined ? [walked.label] : (narrowed?.indexes ?? []), walked?.label)),
          ...(notUsed !== undefined && { skipped: notUsed }),
        };
  return pageOf(query, rows, limit, compiled.select, explain);
}

/** The first `limit` of `rows`, and a cursor when there are more. */
function pageOf(query: Query, rows: EntityRow[], limit: number, select: readonly PropertyPath[] | null, explain?: Explanation): EntityPage {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return {
    rows: page,
    cursor: more ? encodeCursor(query, entityRecord(page[page.length - 1])) : undefined,
    select,
    explain,
  };
}

/** A page's statements rendered for a shape of query (query-shapes.ts): a count and two reads per narrowing, and the collection's own. */
interface ShapedPage {
  readonly select: readonly PropertyPath[] | null;
  readonly narrowings: readonly {
    readonly indexes: readonly string[];
    readonly estimated: boolean;
    readonly count: ShapedStatement;
    readonly read: ShapedStatement;
    /** The read of candidates counted and found few (`fewScope`). */
    readonly fewRead: ShapedStatement;
    /** On PostgreSQL, for a page in created order: the count and the read of few in one statement (`countingAndReadingFew`). */
    readonly countedRead?: ShapedStatement;
  }[];
  readonly collection: ShapedStatement;
  /** Whether the collection's statement reads it in created order (chooseNarrowing `walksInOrder`). */
  readonly createdOrder: boolean;
}

const shapes = shapeCache<ShapedPage>();

/**
 * The first page of a collection read through the statements of its shape (query-shapes.ts),
 * chosen as `findEntities` chooses; undefined when the shape is not cached, or a stored entity's
 * JSON cannot be read (the plain way skips it and says so).
 */
async function findByShape(
  tx: Tx,
  appUuid: string,
  scope: Extract<EntityScope, { kind: 'collection' }>,
  query: Query,
  limit: number,
): Promise<EntityPage | undefined> {
  const shape = shapeOf(query, dialectOf(tx), `${appUuid}/${scope.collection}`, limit);
  const shaped = shapes(clientOf(tx), shape.key, () => shapePage(tx, appUuid, scope, query, shape, limit));
  if (shaped === null) return undefined;
  const run = (statement: ShapedStatement) => clientOf(tx).query<Record<string, unknown>>(statement.sql, paramsOf(statement, shape.numbers));
  try {
    const usable = await usableNarrowings(tx, appUuid, scope, shaped.narrowings);
    // A shape's key and its numbers name a count as the count's text and parameters would.
    const countKey = (narrowing: ShapedPage['narrowings'][number]) =>
      `${shape.key}\u0000${shaped.narrowings.indexOf(narrowing)}\u0000${shape.numbers.join(',')}`;
    const [only] = usable.narrowings;
    if (usable.narrowings.length === 1 && only.countedRead !== undefined) {
      const { countedRead } = only;
      // Its rows, when the count was not remembered and this statement gave it.
      let found: Record<string, unknown>[] | undefined;
      const count = await rememberedCount(
        tx,
        () => countKey(only),
        async () => countOf((found = await run(countedRead))),
      );
      // Many: the count is remembered, and chooseNarrowing reads the collection newest first.
      if (found !== undefined && count < BROAD) return pageOf(query, found.filter((entity) => entity.uuid !== null).map(entityRowOf(tx)), limit, shaped.select);
    }
    const chosen = await chooseNarrowing(tx, usable.narrowings, shaped.createdOrder, (narrowing) =>
      rememberedCount(
        tx,
        () => countKey(narrowing),
        async () => countOf(await run(narrowing.count)),
      ),
    );
    const read = chosen === undefined ? shaped.collection : chosen.counted ? chosen.narrowing.fewRead : chosen.narrowing.read;
    const rows = (await run(read)).map(entityRowOf(tx));
    return pageOf(query, rows, limit, shaped.select);
  } catch (error) {
    if (isUnreadableJsonError(error)) return undefined;
    throw error;
  }
}

/**
 * What `findByShape` runs for `query` of `shape`, from the statements built for it and for its
 * moved copy; null when they do not show its numbers as parameters, the order walks an index, or
 * candidates are read in created order.
 */
function shapePage(
  tx: Tx,
  appUuid: string,
  scope: Extract<EntityScope, { kind: 'collection' }>,
  query: Query,
  shape: QueryShape,
  limit: number,
): ShapedPage | null {
  const index = { appUuid, collection: scope.collection };
  const rendered = (compiled: ReturnType<typeof compileQuery>) => {
    const select = (condition: SQL | undefined) => selectPage(tx, scope, and(condition, compiled.where), compiled.orderBy, limit);
    const page = (condition: SQL | undefined) => select(condition).toSQL();
    // Where PostgreSQL counts before it reads (chooseNarrowing `walksInOrder`).
    const countsFirst = dialectOf(tx) !== 'sqlite' && compiled.created !== null;
    return {
      counts: compiled.narrowed.map((narrowing) => sqlOf(tx, countingCandidates(narrowing.candidates))),
      reads: compiled.narrowed.map((narrowing) => page(narrowing.scope)),
      fewReads: compiled.narrowed.map((narrowing) => page(narrowing.fewScope)),
      countedReads: countsFirst ? compiled.narrowed.map((narrowing) => sqlOf(tx, countingAndReadingFew(narrowing, select))) : [],
      collection: [page(scopeCondition(tx, appUuid, scope))],
    };
  };
  const compiled = compileQuery(query, { dialect: dialectOf(tx), index });
  const moved = compileQuery(shape.moved, { dialect: dialectOf(tx), index });
  // Candidates read in created order take more than one statement (read-in-created-order.ts).
  const inCreatedOrder = compiled.narrowed.some((narrowing) => inCreatedOrderOf(compiled, narrowing) !== undefined);
  if (compiled.ordered !== null || inCreatedOrder || compiled.narrowed.length !== moved.narrowed.length) return null;
  const [actual, other] = [rendered(compiled), rendered(moved)];
  const shaped = (list: keyof typeof actual) => actual[list].map((statement, i) => shapeStatement(shape, statement, other[list][i]));
  const [counts, reads, fewReads, countedReads, collection] = [
    shaped('counts'),
    shaped('reads'),
    shaped('fewReads'),
    shaped('countedReads'),
    shaped('collection'),
  ];
  if (!isEach(counts) || !isEach(reads) || !isEach(fewReads) || !isEach(countedReads) || !isEach(collection)) return null;
  return {
    select: compiled.select,
    narrowings: compiled.narrowed.map((narrowing, i) => ({
      indexes: narrowing.indexes,
      estimated: narrowing.estimated,
      count: counts[i],
      read: reads[i],
      fewRead: fewReads[i],
      ...(countedReads.length > 0 && { countedRead: countedReads[i] }),
    })),
    collection: collection[0],
    createdOrder: compiled.created !== null,
  };
}

const isEach = <T>(list: readonly (T | null)[]): list is T[] => list.every((item) => item !== null);

/** An entity row from a row the driver answered (columns by name), as drizzle's select maps it. */
function entityRowOf(tx: Tx): (found: Record<string, unknown>) => EntityRow {
  const columns = Object.entries(getTableColumns(schemaOf(tx).entities));
  return (found) =>
    Object.fromEntries(
      columns.map(([field, column]) => {
        const value = found[column.name];
        return [field, value === null ? null : column.mapFromDriverValue(value)];
      }),
    ) as EntityRow;
}
