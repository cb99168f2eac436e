// The fuzz suite (test/fuzz/fuzz.test.ts), run longer than `npm test` runs it: every operation of
// /openapi.json gets an equal share of the minutes, round after round of every kind of hostile
// input. A failure prints FUZZ_SEED and the shrunk request; the same --seed runs the same requests
// in the same order (the rounds that fit in the time may differ). With IDP_TEST_DATABASE_URL set,
// it runs on that PostgreSQL server instead of SQLite (docs/testing.md#fuzzing).
// --only PATTERN fuzzes only the operations whose name (`POST /{orgId}/{appId}/{collection}`) the
// regular expression matches.
// Usage: npm run fuzz -- [--seed N] [--minutes M] [--runs R] [--only PATTERN]
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function usage(message) {
  console.error(`error: ${message}\nusage: npm run fuzz -- [--seed N] [--minutes M] [--runs R] [--only PATTERN]`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: { seed: { type: 'string' }, minutes: { type: 'string', default: '5' }, runs: { type: 'string', default: '3' }, only: { type: 'string' } },
  });
} catch (error) {
  usage(error.message);
}
const { values } = parsed;
const seed = values.seed ?? String(randomInt(2 ** 31));
for (const [name, value] of [
  ['seed', seed],
  ['minutes', values.minutes],
  ['runs', values.runs],
]) {
  if (!/^\d+(\.\d+)?$/.test(value) || (name !== 'seed' && Number(value) <= 0)) usage(`--${name} must be a positive number, not '${value}'`);
}
if (!Number.isInteger(Number(seed)) || Number(seed) >= 2 ** 31) usage(`--seed must be an integer below 2^31, not '${seed}'`);

console.log(`fuzzing for ${values.minutes} minutes with FUZZ_SEED=${seed} (replay: npm run fuzz -- --seed ${seed})`);
const result = spawnSync(
  join(root, 'node_modules', '.bin', 'vitest'),
  ['run', 'test/fuzz/fuzz.test.ts', ...(values.only === undefined ? [] : ['-t', values.only])],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, FUZZ_SEED: seed, FUZZ_MINUTES: values.minutes, FUZZ_RUNS: values.runs },
  },
);
process.exitCode = result.status ?? 1;
