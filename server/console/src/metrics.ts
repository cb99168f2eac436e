/**
 * A few figures from the Prometheus text of GET /metrics (docs/operations.md): each sample line is
 * `name{label="value",…} number`; comments and other series are skipped.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (match === null || line.startsWith('#')) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name, value]));
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a series' samples whose labels pass `where` (all of them when left out). */
export function sumOf(samples: readonly Sample[], name: string, where: (labels: Record<string, string>) => boolean = () => true): number {
  return samples.filter((sample) => sample.name === name && where(sample.labels)).reduce((total, sample) => total + sample.value, 0);
}
