/**
 * @module hooks/config-errors
 * Hook configuration errors that say where: `tollgate.yaml: hooks.tool:pre[1].config.allow_tools: expected array`.
 */
import type { z } from 'zod';

/** A configuration problem, located by file (when there is one) and path. */
export class HookConfigError extends Error {
  override name = 'HookConfigError';

  constructor(
    message: string,
    /** The file the configuration came from, if any. */
    readonly file?: string,
    /** Where in the document, e.g. `hooks.tool:pre[1].config.allow_tools`. */
    readonly path?: string,
  ) {
    super([file, path, message].filter(Boolean).join(': '));
  }
}

/** Renders a zod path the way the YAML reads: keys joined by dots, indices in brackets. */
export function formatPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** One short message for a zod issue: "expected array" rather than zod's longer sentence. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  return issue.message;
}

/** Parses `value` with `schema` or throws a {@link HookConfigError} naming the first bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, file: string | undefined, base: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  const extra = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => formatPath('', [k])).join(', ') : '';
  const where = formatPath(base, issue.path);
  throw new HookConfigError(extra ? `unknown key ${extra}` : issueMessage(issue), file, where);
}
