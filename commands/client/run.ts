/**
 * Glue between commander and the actions: `act(fn)` builds the context from the global flags,
 * runs the action, prints its Result with the one printer, and closes the connection pool.
 * Errors travel up to the one catch in commands/index.ts.
 */
import type { Command } from 'commander';
import type { Ctx, GlobalFlags } from './context.js';
import { outputModeOf, printResult, type Result } from './output.js';
import { PartialFailure } from './errors.js';

export function act<A extends unknown[]>(fn: (ctx: Ctx, ...args: A) => Promise<Result>) {
  return async (...raw: unknown[]): Promise<void> => {
    const command = raw[raw.length - 1] as Command;
    // The client (undici, zod) loads when a command runs, not when its help is shown.
    const { createContext } = await import('./context.js');
    const ctx = await createContext(command.optsWithGlobals<GlobalFlags>());
    try {
      const result = await fn(ctx, ...(raw.slice(0, -1) as A));
      await printResult(result, ctx.mode);
      if (result.failure !== undefined) throw new PartialFailure(result.failure);
    } finally {
      await ctx.close();
    }
  };
}

/** Every command's --help ends with examples. */
export function examples(command: Command, ...lines: string[]): Command {
  return command.addHelpText('after', `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((line) => `  $ ${line}`).join('\n')}`);
}

/** The contract of a noun module: it adds its verbs, options and action to the noun's command. */
export interface NounModule {
  register(noun: Command): void;
}

/** Local commands (config, completion): the global flags and the printer, no server connection. */
export function actLocal<A extends unknown[]>(fn: (flags: GlobalFlags, ...args: A) => Promise<Result>) {
  return async (...raw: unknown[]): Promise<void> => {
    const flags = (raw[raw.length - 1] as Command).optsWithGlobals<GlobalFlags>();
    const mode = outputModeOf(flags);
    await printResult(await fn(flags, ...(raw.slice(0, -1) as A)), mode);
  };
}
