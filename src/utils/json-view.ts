/**
 * @module utils/json-view
 * Tool arguments as text for people (the web request page, chat cards), bounded, with secrets masked. Rows can hold arguments that were never checked by today's input
 * bounds (filed by an older version, or written straight into the database): 4,000 levels pretty-printed are 32 MB of
 * indentation, and 10,000 levels overflow every recursive walk. This writer walks iteratively, masks secrets as it
 * goes, stops descending at `maxDepth` and stops writing at `maxChars`, so its work is bounded by what it shows, not
 * by what the row holds.
 */
/** Words that make a key name a secret's. */
const SECRET_WORDS =
  'pass(?:word|wd)?|secret|token|api[-_]?key|private[-_]?key|credential|authorization|cookie|session[-_]?id';
const SECRET_KEY = new RegExp(SECRET_WORDS, 'i');
/** Shapes of tokens issued by well-known services (OpenAI/Anthropic, Slack, GitHub, GitLab, AWS, Stripe, Google), and JWTs. */
const TOKEN_SHAPES =
  'sk-[\\w-]{8,}|xox[abpr]-[\\w-]+|xapp-[\\w-]+|gh[pousr]_\\w{8,}|github_pat_\\w{20,}|glpat-[\\w-]{16,}|(?:AKIA|ASIA)[0-9A-Z]{12,}|[sr]k_(?:live|test)_\\w{8,}|AIza[\\w-]{30,}|eyJ[\\w-]{8,}\\.eyJ[\\w-]{8,}\\.[\\w-]{8,}';
const SECRET_VALUE = new RegExp(`^(?:${TOKEN_SHAPES}|Bearer\\s)|^-----BEGIN [A-Z ]*PRIVATE KEY`);

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
const SECRET_TOKEN = new RegExp(`\\b(?:${TOKEN_SHAPES})`, 'g');
/** `KEY = value` / `"key": "value"` / `key: value` at the start of a line (a diff's or a file's) where the key names a secret. */
const SECRET_ASSIGNMENT = new RegExp(
  `^([+\\- ]?\\s*["']?[\\w.-]{0,128}?)(${SECRET_WORDS})([\\w.-]{0,128}["']?\\s*[:=]\\s*)(.+)$`,
  'i',
);
// Inside a line (a shell command, a request body): the value alone is masked, the rest of the line stays readable.
// Names and values have bounded lengths so a long line costs a bounded amount per character, never a backtracking walk.
/** `export AWS_SECRET_ACCESS_KEY=…`, `--password=…`, `token=…` after a space or a shell operator. */
const SECRET_INLINE = new RegExp(
  `((?:^|[\\s;&|(\`'"])-{0,2}[\\w.-]{0,64}?(?:${SECRET_WORDS})[\\w.-]{0,64}=)("[^"\\n]{0,4096}"|'[^'\\n]{0,4096}'|[^\\s"'\`;&|)]{1,4096})`,
  'gi',
);
/** A quoted header: `-H "Authorization: Bearer …"`, `'X-Api-Key: …'`. */
const SECRET_HEADER = new RegExp(
  `(["'][\\w-]{0,64}?(?:${SECRET_WORDS})[\\w-]{0,64}\\s{0,8}:\\s{0,8})[^"'\\n]{1,4096}(?=["'])`,
  'gi',
);
/** JSON inside a string: `{"password": "…"}` in a request body. */
const SECRET_JSON = new RegExp(
  `("[\\w.-]{0,64}?(?:${SECRET_WORDS})[\\w.-]{0,64}"\\s{0,8}:\\s{0,8})"(?:[^"\\\\\\n]|\\\\.){0,4096}"`,
  'gi',
);
/** The password of a URL: `postgres://app:…@db/prod`. */
const SECRET_URL = /(\b[a-z][\w+.-]{0,20}:\/\/[^\s:/@"']{1,256}:)[^\s@/"']{1,256}(?=@)/gi;
/** A credential after its scheme, unquoted: `Bearer eyJ…`, `Basic dXNlcjpwYXNz`. */
const SECRET_SCHEME = /\b(Bearer|Basic)\s+(?=[\w.~+/-]{0,200}\d)[\w.~+/-]{8,}=*/g;

/**
 * Masks secrets inside one line of text (a line of a diff or a file, a shell command): the value of a `KEY=value` or
 * `"key": value` whose key names a secret (the rest of the line when the line starts with it, else the value alone),
 * a quoted `Authorization: …`-style header, a credential after `Bearer`/`Basic`, a URL's password, and secret-shaped
 * tokens anywhere,
 * by the same rules as {@link maskSecrets}.
 * @example maskSecretsInLine('API_KEY=abc123') // 'API_KEY=••••'
 * @example maskSecretsInLine('curl -H "Authorization: Bearer abc123def456" https://x') // 'curl -H "Authorization: ••••" https://x'
 */
export function maskSecretsInLine(line: string): string {
  const assigned = SECRET_ASSIGNMENT.exec(line);
  if (assigned) return `${assigned[1]}${assigned[2]}${assigned[3]}••••`.replace(SECRET_TOKEN, '••••');
  return line
    .replace(SECRET_HEADER, '$1••••')
    .replace(SECRET_JSON, '$1"••••"')
    .replace(SECRET_INLINE, '$1••••')
    .replace(SECRET_SCHEME, '$1 ••••')
    .replace(SECRET_URL, '$1••••')
    .replace(SECRET_TOKEN, '••••');
}

/**
 * {@link maskSecrets}, then {@link maskSecretsInLine} on every line of every string left: for text people read (a chat
 * card's preview, the web page's views and editor), where a patch or a script holds a secret in one line.
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
   * Also mask secrets line by line inside strings ({@link maskSecretsShown}). A `••••` inside a string cannot be turned
   * back into the secret it hides: text sent back as edited arguments must be compared with what was shown (the web
   * editor keeps a value left as shown and refuses an edited one that still holds a mask).
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
