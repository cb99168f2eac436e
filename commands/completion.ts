/**
 * `idp completion bash|zsh|fish`: completion scripts generated from the command tree itself
 * (every noun loaded), so they never drift from the commands. Nouns, verbs and the long options
 * of the command being typed are completed; a value-taking option's value is skipped when
 * finding the noun and verb. Profile names (after --profile) and, for `idp entity VERB`, the
 * collections of the application on the server come from idp itself: the scripts run
 * `idp [--url U --profile P --org O --app A] completion --candidates profiles|collections`.
 */
import { Argument, Option, type Command } from 'commander';
import { actLocal, examples } from './client/run.js';
import { firstEntity, messageOf } from './client/output.js';
import { listProfiles } from './client/profiles.js';
import { UsageError } from './client/errors.js';
import type { GlobalFlags } from './client/context.js';

interface Flag {
  name: string;
  takesValue: boolean;
  description: string;
}

interface Node {
  name: string;
  description: string;
  flags: Flag[];
  children: Node[];
}

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

function nodeOf(command: Command): Node {
  return {
    name: command.name(),
    description: command.description().split('\n')[0],
    flags: command.options
      .filter((option) => option.long !== undefined)
      .map((option) => ({ name: option.long!, takesValue: option.required || option.optional, description: option.description })),
    children: command.commands.filter((child) => child.name() !== 'help').map(nodeOf),
  };
}

/** A command's own flags and the global ones. */
const flagsOf = (root: Node, node: Node) => (node === root ? root.flags : [...node.flags, ...root.flags.filter((flag) => flag.name !== '--version')]);

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

function valueFlags(root: Node): string[] {
  const all = [root, ...root.children, ...root.children.flatMap((noun) => noun.children)].flatMap((node) => node.flags);
  return [...new Set(all.filter((flag) => flag.takesValue).map((flag) => flag.name))].sort();
}

/** Global flags whose values the candidates query needs: which server, profile and application. */
const CONTEXT_FLAGS = ['--url', '--token', '--profile', '--org', '--app'];

/**
 * Shell code (bash and zsh alike) setting $noun, $verb, the number of positional words after
 * the verb ($npos) and the context flags typed so far ($globals) from the words before the cursor.
 */
function scanWords(root: Node, first: number, current: string, words: string): string {
  const others = valueFlags(root).filter((flag) => !CONTEXT_FLAGS.includes(flag));
  return `  for ((i = ${first}; i < ${current}; i++)); do
    w="\${${words}[i]}"
    case "$w" in
      ${CONTEXT_FLAGS.join('|')}) globals+=("$w" "\${${words}[i+1]}"); ((i++)) ;;
      ${others.join('|')}) ((i++)) ;;
      -*) ;;
      *) if [[ -z "$noun" ]]; then noun="$w"; elif [[ -z "$verb" ]]; then verb="$w"; else ((npos++)); fi ;;
    esac
  done`;
}

/** Nouns whose verbs all take a collection first. */
const COLLECTION_NOUNS = ['entity'];

function bash(root: Node): string {
  const names = (nodes: Node[]) => nodes.map((node) => node.name).join(' ');
  const flags = (node: Node) =>
    flagsOf(root, node)
      .map((flag) => flag.name)
      .join(' ');
  const nounCases = root.children
    .map((noun) => {
      const verbCases = noun.children.map((verb) => `        ${verb.name}) words="${flags(verb)}" ;;`).join('\n');
      return `    ${noun.name})\n      case "$verb" in\n        '') words="${names(noun.children)} ${flags(noun)}" ;;\n${verbCases}\n      esac ;;`;
    })
    .join('\n');
  return `# bash completion for idp: source it, or save it to /etc/bash_completion.d/idp
_idp() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" idp="\${COMP_WORDS[0]}" noun="" verb="" words="" npos=0 i w
  local -a globals=()
${scanWords(root, 1, 'COMP_CWORD', 'COMP_WORDS')}
  if [[ "$prev" == --profile ]]; then
    words="$("$idp" completion --candidates profiles 2>/dev/null)"
  elif [[ " ${COLLECTION_NOUNS.join(' ')} " == *" $noun "* && -n "$verb" && $npos -eq 0 && "$cur" != -* ]]; then
    words="$("$idp" "\${globals[@]}" completion --candidates collections 2>/dev/null)"
  else
    case "$noun" in
      '') words="${names(root.children)} ${flags(root)}" ;;
${nounCases.replaceAll(/^/gm, '  ')}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _idp idp
`;
}

function zsh(root: Node): string {
  const describe = (nodes: Node[]) => nodes.map((node) => quote(`${node.name}:${node.description.replaceAll(':', '\\:')}`)).join(' ');
  const flags = (node: Node) =>
    flagsOf(root, node)
      .map((flag) => quote(flag.name))
      .join(' ');
  const nounCases = root.children
    .map((noun) => {
      const verbCases = noun.children.map((verb) => `        ${verb.name}) compadd -- ${flags(verb)} ;;`).join('\n');
      const verbs = noun.children.length > 0 ? `items=(${describe(noun.children)}); _describe verb items; ` : '';
      return `    ${noun.name})\n      case "$verb" in\n        '') ${verbs}compadd -- ${flags(noun)} ;;\n${verbCases}\n      esac ;;`;
    })
    .join('\n');
  return `#compdef idp
# zsh completion for idp: save as _idp in a directory of $fpath, or source it after compinit
_idp() {
  local noun="" verb="" npos=0 i w idp="\${words[1]}"
  local -a items globals
${scanWords(root, 2, 'CURRENT', 'words')}
  if [[ "\${words[CURRENT-1]}" == --profile ]]; then
    compadd -- \${(f)"$("$idp" completion --candidates profiles 2>/dev/null)"}
    return
  fi
  if [[ " ${COLLECTION_NOUNS.join(' ')} " == *" $noun "* && -n "$verb" && $npos -eq 0 && "\${words[CURRENT]}" != -* ]]; then
    compadd -- \${(f)"$("$idp" "\${globals[@]}" completion --candidates collections 2>/dev/null)"}
    return
  fi
  case "$noun" in
    '') items=(${describe(root.children)}); _describe noun items; compadd -- ${flags(root)} ;;
${nounCases}
  esac
}
compdef _idp idp
`;
}

/** fish functions: the context flags typed so far, and whether the cursor is at a collection. */
function fishFunctions(root: Node): string {
  const others = valueFlags(root).filter((flag) => !CONTEXT_FLAGS.includes(flag));
  return `function __idp_scan
  set -l tokens (commandline -opc)
  set -g __idp_globals
  set -g __idp_positional
  set -l skip 0
  for i in (seq 2 (count $tokens))
    set -l t $tokens[$i]
    if test $skip -eq 1
      set skip 0
      continue
    end
    switch $t
      case ${CONTEXT_FLAGS.join(' ')}
        set -a __idp_globals $t $tokens[(math $i + 1)]
        set skip 1
      case ${others.join(' ')}
        set skip 1
      case '-*'
      case '*'
        set -a __idp_positional $t
    end
  end
end
function __idp_wants_collection
  __idp_scan
  test (count $__idp_positional) -eq 2; and contains -- $__idp_positional[1] ${COLLECTION_NOUNS.join(' ')}
end
function __idp_collections
  __idp_scan
  idp $__idp_globals completion --candidates collections 2>/dev/null
end`;
}

function fish(root: Node): string {
  const lines = ['# fish completion for idp: save as ~/.config/fish/completions/idp.fish', fishFunctions(root), 'complete -c idp -f'];
  const flag = (condition: string, f: Flag) =>
    `complete -c idp -n ${quote(condition)} -l ${f.name.replace(/^--/, '')}${f.takesValue ? ' -r' : ''} -d ${quote(f.description)}`;
  for (const f of root.flags) {
    // -x: the value is one of the saved profiles, never a file.
    const takes = f.name === '--profile' ? " -x -a '(idp completion --candidates profiles 2>/dev/null)'" : f.takesValue ? ' -r' : '';
    lines.push(`complete -c idp -l ${f.name.replace(/^--/, '')}${takes} -d ${quote(f.description)}`);
  }
  lines.push(`complete -c idp -n '__idp_wants_collection' -a '(__idp_collections)' -d collection`);
  for (const noun of root.children) {
    lines.push(`complete -c idp -n '__fish_use_subcommand' -a ${noun.name} -d ${quote(noun.description)}`);
    const verbs = noun.children.map((verb) => verb.name).join(' ');
    const inNoun = `__fish_seen_subcommand_from ${noun.name}`;
    for (const verb of noun.children) {
      lines.push(`complete -c idp -n ${quote(`${inNoun}; and not __fish_seen_subcommand_from ${verbs}`)} -a ${verb.name} -d ${quote(verb.description)}`);
      for (const f of verb.flags) lines.push(flag(`${inNoun}; and __fish_seen_subcommand_from ${verb.name}`, f));
    }
    for (const f of noun.flags) lines.push(flag(inNoun, f));
  }
  return `${lines.join('\n')}\n`;
}

const GENERATORS: Record<Shell, (root: Node) => string> = { bash, zsh, fish };

export function completionScript(program: Command, shell: Shell): string {
  return GENERATORS[shell](nodeOf(program));
}

/** What the scripts ask idp for at the cursor (`idp completion --candidates KIND`). */
const CANDIDATES = ['profiles', 'collections'] as const;
type Candidates = (typeof CANDIDATES)[number];

/** A completion that waits longer than this for the server offers nothing rather than hang the shell. */
const CANDIDATES_TIMEOUT_MS = 2_000;

/** One candidate per line: the saved profiles, or the collections of --app on the server; nothing when it cannot tell. */
async function candidates(flags: GlobalFlags, kind: Candidates): Promise<string[]> {
  if (kind === 'profiles') return Object.keys(await listProfiles());
  const { createContext } = await import('./client/context.js');
  const ctx = await createContext(flags);
  try {
    const { org, app } = ctx.defaults;
    if (!org || !app) return [];
    const path = `/${encodeURIComponent(org)}/${encodeURIComponent(app)}`;
    const body = await ctx.call({ method: 'GET', path, signal: AbortSignal.timeout(CANDIDATES_TIMEOUT_MS) });
    const collections = (firstEntity(body).metadata as { collections?: Record<string, unknown> } | undefined)?.collections;
    return Object.keys(collections ?? {}).sort();
  } catch {
    return [];
  } finally {
    await ctx.close();
  }
}

export function register(noun: Command): void {
  examples(
    noun
      .description('print a shell completion script')
      .addArgument(new Argument('[shell]', 'the shell').choices(SHELLS))
      .addOption(
        new Option('--candidates <kind>', 'what the scripts complete from: saved profiles, or the collections on the server').choices(CANDIDATES).hideHelp(),
      )
      .action(
        actLocal(async (flags: GlobalFlags & { candidates?: Candidates }, shell: Shell | undefined) => {
          if (flags.candidates !== undefined) {
            const text = (await candidates(flags, flags.candidates)).join('\n');
            return messageOf(text.split('\n').filter(Boolean), text, text);
          }
          if (shell === undefined) throw new UsageError(`name a shell: ${SHELLS.join(', ')}`);
          // The program this noun belongs to, whole: commands/index.ts loads every noun before
          // this one runs (and only for this one).
          const script = completionScript(noun.parent!, shell);
          return messageOf({ shell, script }, script.trimEnd(), script.trimEnd());
        }),
      ),
    'idp completion fish > ~/.config/fish/completions/idp.fish',
    'source <(idp completion bash)',
  );
}
