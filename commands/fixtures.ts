import type { Command } from 'commander';
import { act, examples } from './client/run.js';
import type { Ctx } from './client/context.js';
import { planSteps, type Step } from './client/fixture-steps.js';
import { statusLine, styleFor, type Result } from './client/output.js';
import { readFixtures } from '../src/fixtures/apply.js';

export type Outcome = 'created' | 'unchanged' | 'would create' | 'failed';

export interface ItemReport {
  path: string;
  label: string;
  outcome: Outcome;
  error?: string;
}

export interface FixturesReport {
  file: string;
  dry_run: boolean;
  created: number;
  unchanged: number;
  failed: number;
  items: ItemReport[];
}

/** A one-line progress bar on stderr, redrawn in place; only on a terminal. */
function progressBar(total: number) {
  const line = statusLine();
  const style = styleFor(process.stderr);
  const width = 24;
  return {
    tick(done: number, label: string) {
      if (total === 0) return;
      const filled = Math.round((done / total) * width);
      line.show(`${style.green('█'.repeat(filled))}${style.dim('░'.repeat(width - filled))} ${done}/${total} ${label}`);
    },
    done: () => line.clear(),
  };
}

/**
 * Runs the steps in order. A step whose parent failed fails too, without a request; in a dry run,
 * a step whose parent would be created would be created as well, since nothing under it exists.
 */
export async function runSteps(steps: Step[], dryRun: boolean, onItem: (report: ItemReport, done: number) => void = () => {}): Promise<ItemReport[]> {
  const outcomes = new Map<Step, Outcome>();
  const reports: ItemReport[] = [];
  for (const step of steps) {
    const parentOutcomes = step.parents.map((parent) => outcomes.get(parent));
    let report: ItemReport;
    if (parentOutcomes.includes('failed')) {
      const parent = step.parents[parentOutcomes.indexOf('failed')];
      report = { path: step.path, label: step.label, outcome: 'failed', error: `skipped: ${parent.label} (${parent.path}) failed` };
    } else if (parentOutcomes.includes('would create')) {
      report = { path: step.path, label: step.label, outcome: 'would create' };
    } else {
      try {
        const outcome: Outcome = (await step.exists()) ? 'unchanged' : dryRun ? 'would create' : 'created';
        if (outcome === 'created') await step.create();
        report = { path: step.path, label: step.label, outcome };
      } catch (error) {
        report = { path: step.path, label: step.label, outcome: 'failed', error: error instanceof Error ? error.message : String(error) };
      }
    }
    outcomes.set(step, report.outcome);
    reports.push(report);
    onItem(report, reports.length);
  }
  return reports;
}

export function summaryLine(report: FixturesReport): string {
  const counts = `${report.dry_run ? 'would create' : 'created'} ${report.created}, unchanged ${report.unchanged}, failed ${report.failed}`;
  if (report.dry_run) return `dry run: ${counts}`;
  return report.created === 0 && report.failed === 0 ? `nothing to change: ${counts}` : counts;
}

async function apply(ctx: Ctx, file: string, flags: { dryRun?: boolean }): Promise<Result> {
  // The whole file is validated before the first request: a bad file writes nothing.
  const fixtures = await readFixtures(file);
  const steps = planSteps(ctx, fixtures);
  const bar = progressBar(steps.length);
  const items = await runSteps(steps, flags.dryRun === true, (item, done) => {
    if (item.outcome === 'failed') {
      bar.done();
      process.stderr.write(`failed ${item.path} (${item.label}): ${item.error}\n`);
    }
    bar.tick(done, item.label);
  });
  bar.done();
  const count = (...outcomes: Outcome[]) => items.filter((item) => outcomes.includes(item.outcome)).length;
  const report: FixturesReport = {
    file,
    dry_run: flags.dryRun === true,
    created: count('created', 'would create'),
    unchanged: count('unchanged'),
    failed: count('failed'),
    items,
  };
  return {
    json: report,
    view: { kind: 'message', text: summaryLine(report) },
    failure: report.failed > 0 ? `${report.failed} of ${items.length} fixtures failed` : undefined,
  };
}

export function register(noun: Command): void {
  const fixtures = examples(noun.description('fixtures files against a running server'), 'idp fixtures apply fixtures/demo.json');
  examples(
    fixtures
      .command('apply')
      .description('create what the file describes and does not exist yet (idempotent); prints created / unchanged / failed')
      .argument('<file>', 'fixtures JSON file (format: fixtures/schema.json)')
      .option('--dry-run', 'only report what would be created')
      .action(act(apply)),
    'idp fixtures apply fixtures/example-social.json --url http://127.0.0.1:8080',
    'idp fixtures apply fixtures/demo.json --dry-run --json',
  );
}
