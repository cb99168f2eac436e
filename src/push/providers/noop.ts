/**
 * `noop`: accepts every message without sending it anywhere, for development and benchmarks of
 * the queue itself; error messages do not offer it.
 */
import type { Provider } from './types.js';

export const noopProvider: Provider = {
  name: 'noop',
  async validate() {
    return { visible: {}, secret: {} };
  },
  createClient() {
    return {
      async send() {
        return { kind: 'sent' };
      },
      async close() {},
    };
  },
};
