/**
 * `idp completion bash|zsh|fish`: completion scripts generated from the command tree itself
 * (every noun loaded), so they never drift from the commands. Nouns, verbs and the long options
 * of the command being typed are completed; a value-taking option's value is skipped when
 * finding the noun and verb.
 */
import { Argument, type Command } from 'commander';
import { actLocal, examples } from './client/run.js';
import { messageOf } from './client/output.js';

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

/** Shell code (bash and zsh alike) setting $noun and $verb from the words before the cursor. */
function scanWords(root: Node, first: number, current: string, words: string): string {
  return `  for ((i = ${first}; i < ${current}; i++)); do
    w="\${${words}[i]}"
    case "$w" in
      ${valueFlags(root).join('|')}) ((i++)) ;;
      -*) ;;
      *) if [[ -z "$noun" ]]; then noun="$w"; elif [[ -z "$verb" ]]; then verb="$w"; fi ;;
    esac
  done`;
}

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
  local cur="\${COMP_WORDS[COMP_CWORD]}" noun="" verb="" words="" i w
${scanWords(root, 1, 'COMP_CWORD', 'COMP_WORDS')}
  case "$noun" in
    '') words="${names(root.children)} ${flags(root)}" ;;
${nounCases}
  esac
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
  local noun="" verb="" i w
  local -a items
${scanWords(root, 2, 'CURRENT', 'words')}
  case "$noun" in
    '') items=(${describe(root.children)}); _describe noun items; compadd -- ${flags(root)} ;;
${nounCases}
  esac
}
compdef _idp idp
`;
}

function fish(root: Node): string {
  const lines = ['# fish completion for idp: save as ~/.config/fish/completions/idp.fish', 'complete -c idp -f'];
  const flag = (condition: string, f: Flag) =>
    `complete -c idp -n ${quote(condition)} -l ${f.name.replace(/^--/, '')}${f.takesValue ? ' -r' : ''} -d ${quote(f.description)}`;
  for (const f of root.flags) lines.push(`complete -c idp -l ${f.name.replace(/^--/, '')}${f.takesValue ? ' -r' : ''} -d ${quote(f.description)}`);
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

export function register(noun: Command): void {
  examples(
    noun
      .description('print a shell completion script')
      .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
      .action(
        actLocal(async (_flags, shell: Shell) => {
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
