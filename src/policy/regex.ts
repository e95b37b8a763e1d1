/**
 * @module policy/regex
 * CEL's `matches()` in linear time, and the time budget of one policy evaluation.
 *
 * cel-js implements `string.matches(string)` with JavaScript's backtracking `RegExp`: a rule such as
 * `args.branch.matches("^([a-zA-Z0-9]+[-_]?)+$")` and an agent's `"aaaa…a!"` stopped the event loop for seconds,
 * doubling per character. CEL's specification says RE2, whose automaton runs in time linear in the input; `re2js` is
 * a pure-JavaScript port of it (no native build, loaded only when a policy has a `when`). cel-js refuses a second
 * overload of `string.matches`, so {@link useLinearMatches} renames each `matches` call of a parsed expression to
 * {@link RE2_MATCHES} before it is type-checked; the built-in is then never reached.
 */
import { createRequire } from 'node:module';
import type * as Re2 from 're2js';

/** The name `matches` calls are renamed to (an identifier nobody writes by chance; errors name it `matches`). */
export const RE2_MATCHES = '__tollgate_re2_matches';

/** How long one request's policy evaluation may take, all rules together (ms). Far above the usual microseconds. */
export const POLICY_BUDGET_MS = 250;

/** The longest string `matches()` reads: longer ones exceed the budget (RE2 is linear, ~1 µs a character here). */
export const MAX_MATCH_INPUT = 64 * 1024;

/** A policy evaluation ran out of its time budget (or was handed a string too long to match within it). */
export class PolicyBudgetError extends Error {
  override readonly name = 'PolicyBudgetError';
}

let re2: typeof Re2.RE2JS | null = null;
const compiled = new Map<string, Re2.RE2JS>();
/** The deadline of the evaluation running now (evaluations are synchronous, so one at a time per process). */
let deadline = Infinity;

/** The RE2 program of `pattern`, compiled once (the last 256 patterns are kept). Throws on RE2-invalid syntax. */
export function re2Pattern(pattern: string): Re2.RE2JS {
  let program = compiled.get(pattern);
  if (program) return program;
  re2 ??= (createRequire(import.meta.url)('re2js') as typeof Re2).RE2JS;
  program = re2.compile(pattern);
  if (compiled.size >= 256) compiled.delete(compiled.keys().next().value!);
  compiled.set(pattern, program);
  return program;
}

/** `text.matches(pattern)` with RE2 semantics: true when the pattern matches anywhere in `text`. */
export function linearMatches(text: string, pattern: string): boolean {
  if (text.length > MAX_MATCH_INPUT)
    throw new PolicyBudgetError(`matches(): the string is ${text.length} characters, over ${MAX_MATCH_INPUT}`);
  if (performance.now() > deadline) throw new PolicyBudgetError('the policy evaluation ran out of time');
  let program: Re2.RE2JS;
  try {
    program = re2Pattern(pattern);
  } catch (error) {
    throw new Error(`Invalid regular expression: ${pattern} (${(error as Error).message})`);
  }
  return program.matcher(text).find();
}

/**
 * Runs `evaluate` with a deadline {@link POLICY_BUDGET_MS} from now (or the enclosing one, when nested), so every
 * `matches()` inside it and {@link budgetLeft} see it.
 */
export function withPolicyBudget<T>(evaluate: () => T): T {
  if (deadline !== Infinity) return evaluate();
  deadline = performance.now() + POLICY_BUDGET_MS;
  try {
    return evaluate();
  } finally {
    deadline = Infinity;
  }
}

/** Throws {@link PolicyBudgetError} when the running evaluation is past its deadline. */
export function budgetLeft(): void {
  if (performance.now() > deadline) throw new PolicyBudgetError('the policy evaluation ran out of time');
}

/** A cel-js AST node, as far as the rename reads it. */
interface AstNode {
  op: string;
  args: unknown;
  start?: number;
}

/**
 * Renames every `x.matches(p)` in a parsed (not yet checked) cel-js AST to {@link RE2_MATCHES}, and returns the
 * literal patterns with their positions, for the caller to check at load time. Walks every own property, so calls
 * inside macros (`exists`, `all`, `map`, `filter`) are reached whatever shape cel-js gives them.
 */
export function useLinearMatches(root: object): { pattern: string; start: number }[] {
  const Node = root.constructor;
  const seen = new Set<object>();
  const literals: { pattern: string; start: number }[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object' || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      stack.push(...(value as unknown[]));
      continue;
    }
    if (!(value instanceof Node)) continue;
    const node = value as AstNode;
    if ((node.op === 'rcall' || node.op === 'call') && Array.isArray(node.args) && node.args[0] === 'matches') {
      node.args[0] = RE2_MATCHES;
      // rcall: [name, receiver, [pattern]]; call: [name, [text, pattern]].
      const pattern = node.op === 'rcall' ? (node.args[2] as AstNode[])?.[0] : (node.args[1] as AstNode[])?.[1];
      if (pattern?.op === 'value' && typeof pattern.args === 'string')
        literals.push({ pattern: pattern.args, start: pattern.start ?? 0 });
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return literals;
}
