/**
 * A real pseudo-terminal for CLI tests: tmux runs a shell command in a detached session on a
 * private socket, the test types into it with send-keys and reads the screen with capture-pane.
 * (.ci/run installs tmux when it is missing.)
 */
import { execFileSync } from 'node:child_process';

export interface Terminal {
  /** Runs `command` (shell words) in a new session; its exit code is printed after it as EXIT:N. */
  start(command: string, options?: { env?: Record<string, string>; cwd?: string; width?: number }): string;
  screen(session: string): string;
  /** Resolves with the screen once `pattern` is on it. */
  waitFor(session: string, pattern: RegExp, timeoutMs?: number): Promise<string>;
  type(session: string, ...keys: string[]): void;
  kill(session: string): void;
  /** Stops the tmux server. */
  close(): void;
}

/** Single-quotes a word for the shell. */
export const shellWord = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

export function openTerminal(name: string): Terminal {
  const socket = `idp-${name}-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  // A tmux server quits when its last session is killed, and a new-session that reaches it while
  // it quits fails with "server exited unexpectedly"; this one stays up until close().
  tmux('start-server', ';', 'set-option', '-g', 'exit-empty', 'off');
  let sessions = 0;
  const screen = (session: string) => tmux('capture-pane', '-p', '-t', session);
  return {
    start(command, { env = {}, cwd, width = 160 } = {}) {
      const session = `s${++sessions}`;
      const assignments = Object.entries(env).map(([key, value]) => `${key}=${shellWord(value)}`);
      const line = `env ${assignments.join(' ')} ${command}; echo "EXIT:$?"; sleep 60`;
      tmux('new-session', '-d', '-s', session, '-x', String(width), '-y', '40', ...(cwd === undefined ? [] : ['-c', cwd]), line);
      return session;
    },
    screen,
    async waitFor(session, pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = screen(session);
        if (pattern.test(text)) return text;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} on the terminal:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    type: (session, ...keys) => void tmux('send-keys', '-t', session, ...keys),
    kill: (session) => void tmux('kill-session', '-t', session),
    close() {
      try {
        tmux('kill-server');
      } catch {
        // No session was left running.
      }
    },
  };
}
