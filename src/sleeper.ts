/**
 * The sleep of a background worker's poll loop (push deliveries, back-channel logout): for a
 * poll interval, or until something wakes it (new work, an answer, a stop).
 */
export interface Sleeper {
  /** Sleeps `ms`, or until wake(). */
  pause(ms: number): Promise<void>;
  wake(): void;
}

export function createSleeper(): Sleeper {
  let wake: (() => void) | undefined;
  return {
    pause(ms) {
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = done;
      });
    },
    wake() {
      wake?.();
    },
  };
}
