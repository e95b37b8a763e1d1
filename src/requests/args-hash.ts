/**
 * @module requests/args-hash
 * `args_sha256`: a verdict is bound to the exact tool and arguments it was given for.
 */
import { createHash } from 'node:crypto';

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

/** The definition of the canonical form: `JSON.stringify` with every object's keys sorted at every depth. */
function sortedStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(byKey))
      : v,
  );
}

/** Deeper than this, {@link plainJson} leaves the value to `sortedStringify` (which names a cycle as JSON.stringify does). */
const MAX_DEPTH = 200;

/**
 * The canonical JSON of a value made of JSON's own kinds only (what a parsed request holds), built here without
 * `JSON.stringify`'s replacer: the replacer is called back for every key and value and each object is rebuilt sorted,
 * 2 % of a create's CPU. Null for anything else, which `sortedStringify` then writes: an object with `toJSON` or a
 * prototype other than Object's, an `undefined`, function, symbol or bigint anywhere, and a key that is an array
 * index (`Object.fromEntries` would put it first, in numeric order, whatever the sort said).
 */
function plainJson(value: unknown, depth: number): string | null {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'number':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return null;
  }
  if (depth > MAX_DEPTH) return null;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || 'toJSON' in value) return null;
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const item = plainJson(value[i], depth + 1);
      if (item === null) return null;
      out += i === 0 ? item : `,${item}`;
    }
    return `${out}]`;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return null;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const first = key.charCodeAt(0);
    if (first >= 48 && first <= 57) return null;
    const item = plainJson(object[key], depth + 1);
    if (item === null) return null;
    out += `${i === 0 ? '' : ','}${JSON.stringify(key)}:${item}`;
  }
  return `${out}}`;
}

/** JSON with object keys sorted at every depth, so equal arguments hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return plainJson(value, 0) ?? sortedStringify(value);
}

/**
 * SHA-256 (hex) of the canonical JSON of `{tool_name, tool_args}`.
 * @example argsSha256('pay_invoice', { amount: 10 }) === argsSha256('pay_invoice', { amount: 10 })
 */
export function argsSha256(toolName: string, toolArgs: Record<string, unknown>): string {
  return createHash('sha256')
    .update(canonicalJson({ tool_name: toolName, tool_args: toolArgs }))
    .digest('hex');
}
