/**
 * What a local server receives (APNs requests, mail), kept in an array as it arrives, and the
 * promise of its nth item: a test waits for that arrival instead of polling the array.
 */
export interface Arrivals<T> {
  /** Call after pushing to the array: settles the promises of what has arrived. */
  arrived(): void;
  /** Resolves with the item at `index` (0-based) once the array holds it. */
  nth(index: number): Promise<T>;
}

export function trackArrivals<T>(items: readonly T[]): Arrivals<T> {
  let waiting: { index: number; resolve: (item: T) => void }[] = [];
  const arrived = () => {
    const settled = waiting.filter((waiter) => waiter.index < items.length);
    waiting = waiting.filter((waiter) => !settled.includes(waiter));
    for (const waiter of settled) waiter.resolve(items[waiter.index]);
  };
  return {
    arrived,
    nth: (index) =>
      new Promise((resolve) => {
        waiting.push({ index, resolve });
        arrived();
      }),
  };
}
