/** Loading what a screen shows: the value, the error, and a way to load it again after a change. */
import { useCallback, useEffect, useState } from 'preact/hooks';

export interface Loaded<T> {
  value?: T;
  error?: Error;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, keys: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ value?: T; error?: Error; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (value) => current && setState({ value, loading: false }),
      (error: unknown) => current && setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false }),
    );
    // A newer load (another page, another query) wins over one still under way.
    return () => {
      current = false;
    };
  }, [...keys, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { ...state, reload };
}
