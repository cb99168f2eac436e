/**
 * Asking for missing input: only when stdin is a terminal. Without one,
 * a missing value is a usage error (exit code 2) naming the flag to pass, so a script or CI job
 * never waits for an answer nobody will type. Prompts draw on stderr, keeping stdout for results.
 */
import type { Command } from 'commander';
import { UsageError } from './errors.js';

export interface Choice {
  value: string;
  name?: string;
  description?: string;
}

export function isInteractive(): boolean {
  return process.stdin.isTTY === true;
}

const context = () => ({ output: process.stderr });

/**
 * Inquirer is imported on first use: most commands never prompt, and it is not small. Ctrl-C in
 * a prompt ends the command like a refused request (exit code 1), not with a stack trace.
 */
async function prompts() {
  return import('@inquirer/prompts');
}

async function guarded<T>(ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof Error && error.name === 'ExitPromptError') throw new UsageError('cancelled');
    throw error;
  }
}

function missing(what: string, hint: string): UsageError {
  return new UsageError(`${what} is required: ${hint} (prompting needs a terminal)`);
}

/** A required value: the given one, or asked for on a terminal. */
export async function needText(value: string | undefined, what: string, hint: string): Promise<string> {
  if (value !== undefined && value !== '') return value;
  if (!isInteractive()) throw missing(what, hint);
  const { input } = await prompts();
  return guarded(() => input({ message: `${what}:`, required: true }, context()));
}

/** A required secret, asked for with the input hidden. */
export async function needSecret(value: string | undefined, what: string, hint: string): Promise<string> {
  if (value !== undefined && value !== '') return value;
  if (!isInteractive()) throw missing(what, hint);
  const { password } = await prompts();
  return guarded(() => password({ message: `${what}:`, mask: '*', validate: (text) => text.length > 0 || `${what} is required` }, context()));
}

/** A required choice among what the server offers (`idp app delete` lists the apps). */
export async function needChoice(value: string | undefined, what: string, hint: string, load: () => Promise<Choice[]>): Promise<string> {
  if (value !== undefined && value !== '') return value;
  if (!isInteractive()) throw missing(what, hint);
  const choices = await load();
  if (choices.length === 0) throw new UsageError(`there is no ${what} to choose from`);
  const { select } = await prompts();
  return guarded(() => select({ message: `${what}:`, choices }, context()));
}

/** Destructive commands: `--yes` goes ahead; a terminal asks; anything else is a usage error. */
export async function confirmOrYes(yes: boolean | undefined, question: string): Promise<void> {
  if (yes) return;
  if (!isInteractive()) throw new UsageError(`${question} — pass --yes to confirm (prompting needs a terminal)`);
  const { confirm } = await prompts();
  const answer = await guarded(() => confirm({ message: question, default: false }, context()));
  if (!answer) throw new UsageError('cancelled');
}

export interface PasswordFlags {
  password?: string;
  passwordStdin?: boolean;
}

export function passwordOptions(command: Command, what = 'password'): Command {
  return command
    .option('--password <password>', `${what} (asked, hidden, on a terminal; note that other users see flags in ps)`)
    .option('--password-stdin', `read the ${what} from stdin`);
}

/** A password from --password, from a pipe with --password-stdin, or asked with the input hidden. */
export async function passwordOf(flags: PasswordFlags, what = 'password'): Promise<string> {
  if (!flags.passwordStdin) return needSecret(flags.password, what, 'pass --password-stdin and pipe it in');
  if (process.stdin.isTTY) throw new UsageError('--password-stdin reads a piped password; on a terminal, leave it out to be asked');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text === '') throw new UsageError(`--password-stdin: no ${what} on stdin`);
  return text;
}
