/** Reading the Prometheus text format back, as a scraper would. */

/** One sample: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, name, value] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[name] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

/** The value of the sample named `name` whose labels include `labels`; 0 when there is none yet. */
export function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = parseSamples(text).filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
  return found.reduce((sum, sample) => sum + sample.value, 0);
}

/** Every metric family the text declares (`# TYPE name kind`), with or without samples. */
export function familiesOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) \w+$/gm)].map((match) => match[1]));
}
