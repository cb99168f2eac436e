/**
 * `noop`: accepts every message without sending it anywhere, for development and benchmarks of
 * the queue itself (CONTRACT.md section 6: not listed in errors).
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
