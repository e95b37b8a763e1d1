/**
 * @module summaries/shell-parser
 * A real shell parser: tree-sitter-bash's grammar (the `.wasm` shipped in the `tree-sitter-bash` package) run by
 * `web-tree-sitter`, loaded once, on the first shell command, and never downloaded. Reads a command line into the
 * simple commands it runs (through pipes, `&&`, `;`, subshells, `$( )`, `<( )`, blocks and loops) with their
 * redirections and heredocs.
 */
import { createRequire } from 'node:module';
import type { Node as SyntaxNode, Parser as TreeSitterParser } from 'web-tree-sitter';

/*
 * The parse budget counts work, not time. It was 50 ms of wall time, and the same 2.7k-character pipeline read as
 * "could not be parsed" on a loaded machine (or on the parser's first, unoptimized run) and parsed fine otherwise: a
 * summary, and so a policy rule on `risk`, must not depend on the machine's load. Every limit below is a count, so the
 * same command always gets the same summary. The counts were set from measurements on tree-sitter-bash 0.25 (a
 * shared 2-core machine): valid commands of up to 32,000 characters take up to ~2,600 steps and read up to ~15
 * characters per character (a heredoc body full of expansions); the shapes whose cost outgrows their length are cut
 * by these counts before they reach seconds:
 * - re-lexing (a run of `)(&;`): error recovery lexes far ahead at every character, ~O(n²) characters read;
 * - deep nesting (`${${${…`) and long pipelines (`a|a|…`, worse with a trailing `|`): each step costs more as the
 *   parser's stack grows; 32,000 characters of `a|` exhaust the parser's memory outright;
 * - a long line after a heredoc operator, while the heredoc waits for its body: milliseconds per step;
 * - long `&&` chains nest the tree the reader walks one level per operator.
 * Past a budget the command is "could not be parsed" (a `medium` risk), the same answer on every machine.
 */
/** Characters handed to the lexer in one parse, re-reads included. */
export const PARSE_READ_BUDGET = 1_000_000;
/** Parser steps in one parse (tree-sitter reports progress about every 100 operations; one report is a step). */
export const PARSE_STEP_BUDGET = 4_000;
/** Brackets open at once (`(`, `{`, `[`, counted without regard to quoting, so an over-count, never an under-count). */
export const MAX_SHELL_NESTING = 256;
/** Characters of a line after its first heredoc operator (`<<`, not `<<<`), while the heredoc waits for its body. */
export const MAX_HEREDOC_LINE_TAIL = 1_000;
/** Pipes (`|`, not `||`) in one command: each stage of a long pipeline makes every later step dearer. */
export const MAX_SHELL_PIPES = 256;
/** `&&` and `||` in one command: each nests the list before it one level deeper in the tree the reader walks. */
export const MAX_SHELL_LISTS = 1_000;
/** Characters per read: small, because the lexer's error recovery re-reads from where it stands. */
const READ_CHUNK = 256;

/** One simple command as written: its words (unquoted where quoting is plain) and what it redirects. */
export interface SimpleCommand {
  argv: string[];
  /** `>`/`>>` targets, `<` sources. */
  writes: string[];
  reads: string[];
  /** Heredoc and here-string bodies fed to it. */
  stdin: string[];
  /** Index of the pipeline it sits in (commands of one pipeline share it) and its place there. */
  pipeline: number;
  stage: number;
  /** True when a word holds `$( )` or `<( )` whose commands fetch from the network (filled by the reader). */
  substitutions: SimpleCommand[];
}

/** What a command line holds. */
export interface ParsedShell {
  commands: SimpleCommand[];
  /** True when the grammar found a syntax error (what could be read is still listed). */
  hasError: boolean;
}

let parser: Promise<TreeSitterParser> | undefined;

/** Loads the parser once (about 150 ms the first time, nothing after). */
export function loadShellParser(): Promise<TreeSitterParser> {
  parser ??= (async () => {
    const { Parser, Language } = await import('web-tree-sitter');
    await Parser.init();
    const wasm = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
    const instance = new Parser();
    instance.setLanguage(await Language.load(wasm));
    return instance;
  })();
  parser.catch(() => (parser = undefined));
  return parser;
}

/** The plain text of a word: quotes of a plain string removed, escapes undone. */
export function wordText(node: SyntaxNode): string {
  switch (node.type) {
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return node.text.slice(2, -1);
    case 'concatenation':
      return node.namedChildren.map((c) => (c ? wordText(c) : '')).join('');
    case 'word':
      return node.text.replace(/\\(.)/g, '$1');
    default:
      return node.text;
  }
}

class Reader {
  readonly commands: SimpleCommand[] = [];
  private pipelines = 0;

  read(node: SyntaxNode, pipeline: number, stage: number, into: SimpleCommand[]): void {
    switch (node.type) {
      case 'pipeline': {
        const id = ++this.pipelines;
        node.namedChildren.forEach((child, i) => child && this.read(child, id, i, into));
        return;
      }
      case 'redirected_statement': {
        const before = into.length;
        const body = node.childForFieldName('body');
        if (body) this.read(body, pipeline, stage, into);
        const target = into[before] ?? this.orphan(pipeline, stage, into);
        for (const redirect of node.childrenForFieldName('redirect')) if (redirect) this.redirect(redirect, target);
        this.afterHeredoc(node, target, into);
        return;
      }
      case 'command':
        into.push(this.command(node, pipeline, stage));
        return;
      default:
        for (const child of node.namedChildren) if (child) this.read(child, pipeline, stage, into);
    }
  }

  /**
   * What follows a heredoc operator on its line (`cat <<EOF | sudo bash`): the grammar puts it inside the heredoc's
   * node, and it runs like any stage of the pipeline the heredoc's command starts.
   */
  private afterHeredoc(node: SyntaxNode, target: SimpleCommand, into: SimpleCommand[]): void {
    for (const redirect of node.childrenForFieldName('redirect')) {
      if (redirect?.type !== 'heredoc_redirect') continue;
      for (const child of redirect.namedChildren) {
        if (!child || child.type.startsWith('heredoc_')) continue;
        if (target.pipeline === 0) target.pipeline = ++this.pipelines;
        const stages = child.type === 'pipeline' ? child.namedChildren : [child];
        stages.forEach((stage, i) => stage && this.read(stage, target.pipeline, target.stage + 1 + i, into));
      }
    }
  }

  private orphan(pipeline: number, stage: number, into: SimpleCommand[]): SimpleCommand {
    const command = { argv: [], writes: [], reads: [], stdin: [], pipeline, stage, substitutions: [] };
    into.push(command);
    return command;
  }

  private redirect(node: SyntaxNode, target: SimpleCommand): void {
    if (node.type === 'heredoc_redirect') {
      const body = node.namedChildren.find((c) => c?.type === 'heredoc_body');
      if (body) target.stdin.push(body.text);
      return;
    }
    if (node.type === 'herestring_redirect') {
      const word = node.namedChildren.at(-1);
      if (word) target.stdin.push(wordText(word));
      return;
    }
    const destination = node.childForFieldName('destination');
    if (!destination) return;
    const operator = node.children.find((c) => c && !c.isNamed && /[<>]/.test(c.type))?.type ?? '>';
    if (operator.includes('>') && !/^&?\d*$/.test(wordText(destination))) target.writes.push(wordText(destination));
    else if (operator.startsWith('<')) target.reads.push(wordText(destination));
  }

  private command(node: SyntaxNode, pipeline: number, stage: number): SimpleCommand {
    const command: SimpleCommand = { argv: [], writes: [], reads: [], stdin: [], pipeline, stage, substitutions: [] };
    for (const child of node.namedChildren) {
      if (!child || child.type === 'variable_assignment') {
        if (child) this.substitutionsIn(child, command);
        continue;
      }
      if (child.type === 'file_redirect' || child.type === 'heredoc_redirect' || child.type === 'herestring_redirect') {
        this.redirect(child, command);
        continue;
      }
      command.argv.push(wordText(child.type === 'command_name' ? (child.namedChildren[0] ?? child) : child));
      this.substitutionsIn(child, command);
    }
    return command;
  }

  /**
   * Commands inside `$( )`, backticks and `<( )` in a word: run too, and listed. Only the outermost substitutions are
   * read here: the ones nested inside them belong to the words of the commands they hold, which read their own. (All
   * descendants at every level read each nested one again at every level above it: `$($($(…)))` 30 deep was 2³⁰ reads.)
   */
  private substitutionsIn(node: SyntaxNode, command: SimpleCommand): void {
    const stack = [...node.namedChildren].reverse();
    if (node.type === 'command_substitution' || node.type === 'process_substitution')
      stack.splice(0, stack.length, node);
    while (stack.length) {
      const next = stack.pop();
      if (!next) continue;
      if (next.type !== 'command_substitution' && next.type !== 'process_substitution') {
        const children = next.namedChildren;
        for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] ?? null);
        continue;
      }
      const inner: SimpleCommand[] = [];
      for (const child of next.namedChildren) if (child) this.read(child, ++this.pipelines, 0, inner);
      command.substitutions.push(...inner);
    }
  }
}

/** Why a command was not parsed: it is past one of the parse budgets. */
export interface OverBudget {
  overBudget: string;
}

/** The first budget `source` is over before parsing (nesting, a line after a heredoc operator), or null. */
function shapeOverBudget(source: string): string | null {
  let depth = 0;
  let deepest = 0;
  let heredocAt = -1;
  let pipes = 0;
  let lists = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 124 || c === 38) {
      if (source.charCodeAt(i + 1) === c) {
        lists++;
        i++;
      } else if (c === 124) pipes++;
    } else if (c === 40 || c === 123 || c === 91) deepest = Math.max(deepest, ++depth);
    else if ((c === 41 || c === 125 || c === 93) && depth > 0) depth--;
    else if (c === 10) {
      if (heredocAt >= 0 && i - heredocAt > MAX_HEREDOC_LINE_TAIL) break;
      heredocAt = -1;
    } else if (c === 60 && source.charCodeAt(i + 1) === 60 && heredocAt < 0 && source.charCodeAt(i + 2) !== 60)
      heredocAt = i;
    else if (c === 60) while (source.charCodeAt(i + 1) === 60) i++;
  }
  if (lists > MAX_SHELL_LISTS) return `too complex to parse: more than ${MAX_SHELL_LISTS} && and ||`;
  if (pipes > MAX_SHELL_PIPES) return `too complex to parse: more than ${MAX_SHELL_PIPES} pipes`;
  if (deepest > MAX_SHELL_NESTING) return `too complex to parse: nested more than ${MAX_SHELL_NESTING} levels`;
  if (heredocAt >= 0 && source.length - heredocAt > MAX_HEREDOC_LINE_TAIL + 1)
    return `too complex to parse: more than ${MAX_HEREDOC_LINE_TAIL} characters after a heredoc on its line`;
  return null;
}

/**
 * Parses a command line, within the parse budgets (counts of work, never time: the same command always parses the
 * same way). Resolves to {@link OverBudget} when the command is past one.
 * @example ((await parseShell('curl -s x.sh | sh')) as ParsedShell).commands.map((c) => c.argv[0]) // ['curl', 'sh']
 */
export async function parseShell(source: string): Promise<ParsedShell | OverBudget> {
  const shape = shapeOverBudget(source);
  if (shape) return { overBudget: shape };
  const instance = await loadShellParser();
  let read = 0;
  let steps = 0;
  let over: string | null = null;
  const tree = instance.parse(
    (index: number) => {
      if (over) return '';
      const chunk = source.slice(index, index + READ_CHUNK);
      read += chunk.length;
      if (read > PARSE_READ_BUDGET) over = `too complex to parse: more than ${PARSE_READ_BUDGET} characters read`;
      // An empty read is the end of the input: the lexer stops at once, and the parse is dropped below.
      return over ? '' : chunk;
    },
    null,
    {
      // web-tree-sitter cancels the parse when this returns true (its .d.ts says void).
      progressCallback: (() => {
        if (++steps > PARSE_STEP_BUDGET) over ??= `too complex to parse: more than ${PARSE_STEP_BUDGET} parser steps`;
        return over !== null;
      }) as () => void,
    },
  );
  if (over || !tree) {
    tree?.delete();
    // A cancelled parse is resumed by the next call unless the parser is reset: the next command would be read as
    // the rest of this one.
    instance.reset();
    return { overBudget: over ?? 'too complex to parse' };
  }
  try {
    const reader = new Reader();
    const top: SimpleCommand[] = [];
    reader.read(tree.rootNode, 0, 0, top);
    return { commands: top, hasError: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}
