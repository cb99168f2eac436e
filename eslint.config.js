import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';

/*
 * What may import what (docs/design.md, "Layers"): bin → commands → server → src. Inside src/,
 * the units below form a one-way stack, lowest first: a file imports from its own unit and from
 * lower layers only, type imports included, never from a higher layer nor from another unit of
 * its own layer, so folders cannot import each other; import-x/no-cycle finds file cycles.
 *
 *   base         vocabulary and primitives, no storage; runtime/ finds the program's files
 *   query        data/query/, the query language: pure, and db/ runs its functions in SQLite
 *   db, mail     storage (with the entity rows every layer above reads) and outgoing mail
 *   deps         the Deps interface and the store contracts it names
 *   access … push  the domain, each layer using only those before it
 *   create-deps  assembles Deps from the implementations
 */
const LAYERS = [
  {
    base: [
      'src/acr.ts',
      'src/config.ts',
      'src/errors.ts',
      'src/ids.ts',
      'src/logger.ts',
      'src/metrics.ts',
      'src/passwords.ts',
      'src/password-policy.ts',
      'src/principal.ts',
      'src/version.ts',
      'src/sleeper.ts',
      'src/runtime',
    ],
  },
  { query: ['src/data/query'] },
  { db: ['src/db'], mail: ['src/mail'] },
  { deps: ['src/deps.ts'] },
  { access: ['src/access'] },
  { management: ['src/management'] },
  { identity: ['src/identity'] },
  { data: ['src/data'] },
  { activity: ['src/activity'], fixtures: ['src/fixtures'], lifecycle: ['src/lifecycle'], operations: ['src/operations'], push: ['src/push'] },
  { 'create-deps': ['src/create-deps.ts'] },
];

const units = LAYERS.flatMap((layer, level) => Object.entries(layer).map(([name, paths]) => ({ name, paths, level })));
const inside = (outer, inner) => inner.startsWith(`${outer}/`);

// A new file or folder directly under src/ must be given its place in the stack.
for (const entry of readdirSync('src')) {
  if (!units.some((unit) => unit.paths.some((path) => path === `src/${entry}` || path.startsWith(`src/${entry}/`)))) {
    throw new Error(`eslint.config.js: src/${entry} is in no layer of LAYERS`);
  }
}

// One zone per unit and each unit it must not import: those of its own layer and those above.
// A unit nested in a higher one (data/query in data) stays importable from below.
const layerZones = units.flatMap((target) =>
  units
    .filter((from) => from !== target && from.level >= target.level)
    .flatMap((from) =>
      from.paths.map((fromPath) => ({
        target: target.paths,
        from: fromPath,
        except: units
          .filter((unit) => unit === target || unit.level < target.level)
          .flatMap((unit) => unit.paths.filter((path) => inside(fromPath, path)).map((path) => `./${path.slice(fromPath.length + 1)}`)),
        message:
          from.level === target.level
            ? `${target.name} and ${from.name} share a layer and do not import each other (eslint.config.js, LAYERS).`
            : `${target.name} is below ${from.name}: move what both need down a layer (eslint.config.js, LAYERS).`,
      })),
    ),
);

const programZones = [
  { target: 'src', from: ['server', 'commands', 'bin', 'fixtures'], message: 'src/ is the core: the server, the CLI and fixture files build on it.' },
  { target: 'server', from: ['commands', 'bin'], message: 'server/ is HTTP only: the CLI builds on it.' },
  { target: 'commands', from: 'bin', message: 'bin/ only starts the CLI.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'outbox/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      // Imports name the compiled .js file; the source beside it is .ts.
      'import-x/resolver-next': [createNodeResolver({ extensionAlias: { '.js': ['.ts', '.js'] } })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: [...programZones, ...layerZones] }],
      // `_name`: a value taken apart and deliberately left unused.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['src/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['hono', 'hono/*', '@hono/*', 'commander', '@inquirer/*', 'undici', 'undici/*'],
              message: 'src/ is the core: HTTP (hono, undici), the CLI (commander) and prompts belong to server/ and commands/.',
            },
          ],
        },
      ],
    },
  },
  {
    // Storage code runs on both databases (docs/design.md#storage): what only drizzle's SQLite
    // builder answers goes through src/db/run.ts, which asks the handle's dialect. Exempt: the
    // SQLite driver's own better-sqlite3 statements, and mail (whose transport has a `get()`).
    files: ['src/**'],
    ignores: ['src/db/sqlite.ts', 'src/db/group-commit.ts', 'src/db/group-indexing.ts', 'src/db/backup.ts', 'src/db/open.ts', 'src/db/run.ts', 'src/mail/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[arguments.length=0] > MemberExpression.callee > Identifier.property[name=/^(get|all|run|prepare)$/]',
          message: "Only SQLite's query builder has it: await the query, or use first/prepare of src/db/run.ts.",
        },
      ],
    },
  },
  {
    // A function says what it does in a screenful: a longer one is split into named pieces.
    files: ['src/**', 'server/**', 'commands/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  {
    // Tests read JSON answers as they come.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['server/pages/assets/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
