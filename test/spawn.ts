/**
 * Runs the real `idp` executable (bin/idp.js over dist/bundle/, built by `npm test`) as a child
 * process, for tests of start-up, flags, signals and the CLI.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../bin/idp.js', import.meta.url));

export interface RunningIdp {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stderr, once it is written. */
  stderrMatch(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `command` is what runs `idp`: node over bin/idp.js by default, or a single executable. */
export function startIdp(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 15_000, command: string[] = [process.execPath, BIN]): Promise<RunningIdp> {
  const [file, ...prefix] = command;
  const child = spawn(file, [...prefix, 'serve', ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`idp did not start within ${timeoutMs} ms\nstdout: ${out}\nstderr: ${err}`));
    }, timeoutMs);
    child.stdout!.on('data', (chunk) => {
      out += chunk;
      const match = out.match(/listening on (http:\/\/\S+)/);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1],
          child,
          stdout: () => out,
          stderr: () => err,
          stderrMatch: (pattern) => matchOutput(child.stderr!, err, pattern),
          stop(signal = 'SIGTERM') {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`idp exited with ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

/**
 * Resolves with the first match of `pattern` in a child's output: in `before` (what it wrote so
 * far) or in what it writes next. Rejects if the output ends without one.
 */
export function matchOutput(stream: Readable, before: string, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = before;
    const found = () => pattern.exec(text);
    const onData = (chunk: Buffer | string) => {
      text += chunk;
      const match = found();
      if (match === null) return;
      stop();
      resolve(match);
    };
    const onEnd = () => {
      stop();
      reject(new Error(`the output ended without a match of ${pattern}:\n${text}`));
    };
    const stop = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
    };
    const match = found();
    if (match !== null) return resolve(match);
    stream.on('data', onData);
    stream.on('end', onEnd);
  });
}

/** Runs `idp ARGS` to completion; stdin is never a terminal: `input` when given, else empty. */
export function runIdp(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 15_000,
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // 'close', not 'exit': the child may have exited before its last output was read from the pipes.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
