/**
 * @module utils/json-view
 * Tool arguments as text for people (the web request page, chat cards), bounded, with secrets masked. Rows can hold arguments that were never checked by today's input
 * bounds (filed by an older version, or written straight into the database): 4,000 levels pretty-printed are 32 MB of
 * indentation, and 10,000 levels overflow every recursive walk. This writer walks iteratively, masks secrets as it
 * goes, stops descending at `maxDepth` and stops writing at `maxChars`, so its work is bounded by what it shows, not
 * by what the row holds.
 */
const SECRET_KEY =
  /pass(word|wd)?|secret|token|api[-_]?key|private[-_]?key|credential|authorization|cookie|session[-_]?id/i;
const SECRET_VALUE = /^(sk-|xox[abpr]-|xapp-|ghp_|gho_|AKIA|Bearer\s)|^-----BEGIN [A-Z ]*PRIVATE KEY/;

/** Replaces secret-looking values (by key name or by shape) with `••••`, at every depth. */
export function maskSecrets(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return SECRET_KEY.test(key) || SECRET_VALUE.test(value) ? '••••' : value;
  if (Array.isArray(value)) return value.map((v) => maskSecrets(v, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        SECRET_KEY.test(k) && v !== null && typeof v !== 'object' ? '••••' : maskSecrets(v, k),
      ]),
    );
  }
  return value;
}

/** A secret-looking token anywhere in a line of text (the shapes {@link maskSecrets} masks as whole values). */
const SECRET_TOKEN = /\b(sk-[\w-]{8,}|xox[abpr]-[\w-]+|xapp-[\w-]+|gh[po]_\w{8,}|AKIA[0-9A-Z]{12,})/g;
/** `KEY = value` / `"key": "value"` / `key: value` where the key names a secret. */
const SECRET_ASSIGNMENT =
  /^([+\- ]?\s*["']?[\w.-]*?)(pass(?:word|wd)?|secret|token|api[-_]?key|private[-_]?key|credential|authorization|cookie|session[-_]?id)([\w.-]*["']?\s*[:=]\s*)(.+)$/i;

/**
 * Masks secrets inside one line of text (a line of a diff or a file): the value of a `KEY=value` or `"key": value`
 * whose key names a secret, and secret-shaped tokens anywhere, by the same rules as {@link maskSecrets}.
 * @example maskSecretsInLine('API_KEY=abc123') // 'API_KEY=••••'
 */
export function maskSecretsInLine(line: string): string {
  const assigned = SECRET_ASSIGNMENT.exec(line);
  const masked = assigned ? `${assigned[1]}${assigned[2]}${assigned[3]}••••` : line;
  return masked.replace(SECRET_TOKEN, '••••');
}

/**
 * {@link maskSecrets}, then {@link maskSecretsInLine} on every line of every string left: for text that is only shown
 * (a chat card's preview, never sent back as edited arguments), where a patch or a script holds a secret in one line.
 * Callers bound the depth first (cards check it against the API's bound).
 * @example maskSecretsShown({ input: "+API_KEY=abc\n+x" }) // { input: '+API_KEY=••••\n+x' }
 */
export function maskSecretsShown(value: unknown, key = ''): unknown {
  const walk = (v: unknown): unknown =>
    typeof v === 'string'
      ? v.includes('\n')
        ? v.split('\n').map(maskSecretsInLine).join('\n')
        : maskSecretsInLine(v)
      : Array.isArray(v)
        ? v.map(walk)
        : v && typeof v === 'object'
          ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, walk(x)]))
          : v;
  return walk(maskSecrets(value, key));
}

/** Limits of {@link boundedJson}. */
export interface JsonViewLimits {
  /** Containers deeper than this are shown as `{…}` / `[…]`. */
  maxDepth: number;
  /** Characters written at most (the notice of what was left out comes on top). */
  maxChars: number;
  /** Spaces per level; 0 writes compact JSON on one line. */
  indent: number;
  /**
   * Also mask secrets line by line inside strings ({@link maskSecretsShown}): for views only read, never for text
   * sent back as edited arguments (a `••••` inside a string could not be restored to the secret it hides).
   */
  maskLines?: boolean;
}

/** The text and whether anything was left out. */
export interface JsonView {
  text: string;
  truncated: boolean;
}

type Task = { text: string } | { value: unknown; depth: number; key: string };

/** The masked value of a scalar under `key`: the same rule cards use (`maskSecrets`), applied one level at a time. */
const maskScalar = (value: unknown, key: string): unknown =>
  (maskSecrets({ [key]: value }) as Record<string, unknown>)[key];

/**
 * Writes `value` as JSON within `limits`, secrets masked (`key` is the name it sits under, for the masking rule).
 * @example boundedJson(args, { maxDepth: 12, maxChars: 20_000, indent: 2 }) // { text, truncated }
 */
export function boundedJson(value: unknown, limits: JsonViewLimits, key = ''): JsonView {
  const out: string[] = [];
  let length = 0;
  let truncated = false;
  const emit = (text: string) => {
    out.push(text);
    length += text.length;
  };
  const newline = (depth: number) => (limits.indent > 0 ? `\n${' '.repeat(limits.indent * depth)}` : '');
  const stack: Task[] = [{ value, depth: 0, key }];
  while (stack.length > 0) {
    if (length >= limits.maxChars) {
      truncated = true;
      break;
    }
    const task = stack.pop()!;
    if ('text' in task) {
      emit(task.text);
      continue;
    }
    const { depth, key } = task;
    const node = task.value;
    if (node === null || typeof node !== 'object') {
      const shown = limits.maskLines ? maskSecretsShown(maskScalar(node, key)) : maskScalar(node, key);
      if (typeof shown === 'string' && shown.length > limits.maxChars - length) {
        // Cut a long string before quoting it: quoting all of it would cost its whole length.
        emit(`${JSON.stringify(shown.slice(0, Math.max(0, limits.maxChars - length)))}…`);
        truncated = true;
      } else emit(shown === undefined ? 'null' : JSON.stringify(shown));
      continue;
    }
    const isArray = Array.isArray(node);
    const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
    const keys = isArray ? null : Object.keys(node);
    const size = isArray ? node.length : keys!.length;
    if (size === 0) {
      emit(open + close);
      continue;
    }
    if (depth >= limits.maxDepth) {
      emit(`${open}…${close}`);
      truncated = true;
      continue;
    }
    // Each child costs at least one character, so more than the room left can never be shown: do not queue them.
    const shown = Math.min(size, Math.max(1, limits.maxChars - length));
    const children: Task[] = [];
    for (let i = 0; i < shown; i++) {
      const childKey = isArray ? key : keys![i]!;
      const child = isArray ? node[i] : (node as Record<string, unknown>)[childKey];
      const label = isArray ? '' : `${JSON.stringify(childKey)}:${limits.indent > 0 ? ' ' : ''}`;
      children.push(
        { text: `${i > 0 ? ',' : ''}${newline(depth + 1)}${label}` },
        { value: child, depth: depth + 1, key: childKey },
      );
    }
    if (shown < size) {
      children.push({ text: `,${newline(depth + 1)}… ${size - shown} more` });
      truncated = true;
    }
    emit(open);
    stack.push({ text: `${newline(depth)}${close}` });
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { text: out.join(''), truncated };
}
