/**
 * @module api/validation
 * The one place zod issues become words: a path written the way the JSON or YAML reads (`channels[0].type`,
 * `web.users[1].name`) and one short message per issue. Every schema in tollgate (API bodies, the config file,
 * channel sections, hook configuration, CLI options) reports through here, so a bad field reads the same everywhere.
 */
import type { z } from 'zod';
import { ValidationError, type FieldProblem } from './errors.js';

/** Renders a zod path after an optional base: keys joined by dots, indices in brackets. */
export function formatPath(base: string, path: readonly PropertyKey[]): string {
  let out = base;
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** One short message for a zod issue: "required", "unknown field(s): colour", "expected array", or zod's own. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field(s): ${issue.keys.join(', ')}`;
  if (issue.code === 'invalid_type')
    return issue.message.endsWith('received undefined') ? 'required' : `expected ${issue.expected}`;
  return issue.message;
}

/**
 * Every issue as a {@link FieldProblem}. `base` prefixes each path (`web`, `feishu`); `whole` names the value itself
 * for an issue about it rather than one of its fields (default: `base`, else `value`).
 */
export function fieldProblems(issues: readonly z.core.$ZodIssue[], base = '', whole = base || 'value'): FieldProblem[] {
  return issues.map((issue) => ({
    path: issue.path.length ? formatPath(base, issue.path) : whole,
    message: issueMessage(issue),
  }));
}

/** A {@link ValidationError} whose message names the first problem and whose `errors` list them all. */
export function validationError(problems: FieldProblem[], fallback = 'invalid input'): ValidationError {
  const first = problems[0];
  return new ValidationError(first ? `${first.path}: ${first.message}` : fallback, problems);
}

/**
 * Parses `input` with `schema`, or throws a {@link ValidationError} naming each bad field.
 * @example parseInput(createRequestSchema, req.body, 'body')
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where: string, base = ''): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(fieldProblems(result.error.issues, base, where), `invalid ${where}`);
}
