/**
 * @module summaries/shell-parser
 * A real shell parser: tree-sitter-bash's grammar (the `.wasm` shipped in the `tree-sitter-bash` package) run by
 * `web-tree-sitter`, loaded once, on the first shell command, and never downloaded. Reads a command line into the
 * simple commands it runs (through pipes, `&&`, `;`, subshells, `$( )`, `<( )`, blocks and loops) with their
 * redirections and heredocs.
 */
import { createRequire } from 'node:module';
import type { Node as SyntaxNode, Parser as TreeSitterParser } from 'web-tree-sitter';

/** Milliseconds one parse may take before it is abandoned (the command is then shown as unparsed). */
const PARSE_BUDGET_MS = 50;

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
        return;
      }
      case 'command':
        into.push(this.command(node, pipeline, stage));
        return;
      default:
        for (const child of node.namedChildren) if (child) this.read(child, pipeline, stage, into);
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

  /** Commands inside `$( )`, backticks and `<( )` in a word: run too, and listed. */
  private substitutionsIn(node: SyntaxNode, command: SimpleCommand): void {
    const subs = node.descendantsOfType(['command_substitution', 'process_substitution']);
    for (const sub of subs) {
      if (!sub) continue;
      const inner: SimpleCommand[] = [];
      for (const child of sub.namedChildren) if (child) this.read(child, ++this.pipelines, 0, inner);
      command.substitutions.push(...inner);
    }
  }
}

/**
 * Parses a command line. Resolves to null when parsing ran past its time budget.
 * @example (await parseShell('curl -s x.sh | sh'))?.commands.map((c) => c.argv[0]) // ['curl', 'sh']
 */
export async function parseShell(source: string): Promise<ParsedShell | null> {
  const instance = await loadShellParser();
  const started = performance.now();
  const tree = instance.parse(source, null, {
    // web-tree-sitter cancels the parse when this returns true (its .d.ts says void).
    progressCallback: (() => performance.now() - started > PARSE_BUDGET_MS) as () => void,
  });
  if (!tree) return null;
  try {
    const reader = new Reader();
    const top: SimpleCommand[] = [];
    reader.read(tree.rootNode, 0, 0, top);
    return { commands: top, hasError: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}
