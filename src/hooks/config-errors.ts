/**
 * @module hooks/config-errors
 * Hook configuration errors that say where: `tollgate.yaml: hooks.tool:pre[1].config.allow_tools: expected array`.
 */
import type { z } from 'zod';
import { formatPath, issueMessage } from '../api/validation.js';

export { formatPath } from '../api/validation.js';

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

/** Parses `value` with `schema` or throws a {@link HookConfigError} naming the first bad field. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string | undefined,
  base: string,
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  throw new HookConfigError(issueMessage(issue), file, formatPath(base, issue.path));
}
