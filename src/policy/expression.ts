/**
 * @module policy/expression
 * `when:` expressions in CEL (Common Expression Language, via `@marcbachmann/cel-js`): non-Turing-complete, no
 * `eval`, no I/O, bounded size. Each expression is parsed and type-checked once when the policy loads; a request
 * then costs one evaluation of the compiled form (well under a microsecond for the usual comparison).
 */
import { createRequire } from 'node:module';
import type * as Cel from '@marcbachmann/cel-js';
import type { Environment, ParseError } from '@marcbachmann/cel-js';
import { linearMatches, PolicyBudgetError, re2Pattern, RE2_MATCHES, useLinearMatches } from './regex.js';

/** The variables a `when` expression may read. */
export const WHEN_VARIABLES = [
  'args',
  'tool_name',
  'agent_id',
  'user_id',
  'session_id',
  'metadata',
  'risk',
  'risk_reasons',
] as const;

/** What a request offers an expression. Absent ids are `null`. */
export interface WhenContext {
  args: Record<string, unknown>;
  tool_name: string;
  agent_id: string | null;
  user_id: string | null;
  session_id: string | null;
  metadata: Record<string, unknown>;
  /** The call summary's risk (`low`, `medium`, `high`), or null for a call filed without a summary. */
  risk?: string | null;
  /** The codes of the summary's risk reasons (`recursive_delete`, `network`, …); empty without a summary. */
  risk_reasons?: string[];
}

let built: Environment | null = null;

/**
 * The CEL environment, built at the first `when:` expression: most gateways have none, and loading cel-js at start
 * costs memory every process would pay. Node 20.19+ and 22.12+ require an ES module synchronously (package.json's
 * engines: ^20.19.0 || >=22.13.0, as some dependencies ask), so compiling stays sync.
 * Built once: creating an Environment is the expensive part. Ids are `dyn` because they may be null.
 */
function environment(): Environment {
  if (built) return built;
  const cel = createRequire(import.meta.url)('@marcbachmann/cel-js') as typeof Cel;
  built = new cel.Environment({
    homogeneousAggregateLiterals: false,
    limits: { maxAstNodes: 2000, maxDepth: 50, maxListElements: 500, maxMapEntries: 500, maxCallArguments: 16 },
  })
    .registerVariable('args', 'map')
    .registerVariable('tool_name', 'string')
    .registerVariable('agent_id', 'dyn')
    .registerVariable('user_id', 'dyn')
    .registerVariable('session_id', 'dyn')
    .registerVariable('metadata', 'map')
    .registerVariable('risk', 'dyn')
    .registerVariable('risk_reasons', 'list')
    // RE2 instead of the built-in backtracking matches() (see policy/regex): both of CEL's forms.
    .registerFunction(`string.${RE2_MATCHES}(string): bool`, linearMatches)
    .registerFunction(`${RE2_MATCHES}(string, string): bool`, linearMatches);
  return built;
}

/** A `when` expression that does not parse or type-check; `line`/`column` are 1-based, inside the expression. */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
  constructor(
    /** CEL's short description ("Unexpected token: EOF", "Unknown variable: foo"). */
    readonly summary: string,
    readonly line: number,
    readonly column: number,
    /** CEL's message with the source line and a caret under the position. */
    readonly excerpt: string,
  ) {
    super(`line ${line}, column ${column}: ${summary}`);
  }
}

/** A compiled `when` expression. */
export interface CompiledWhen {
  readonly source: string;
  /** True or false for this request; throws (with a position) when it cannot be evaluated, e.g. a missing key. */
  evaluate(context: WhenContext): boolean;
}

/**
 * Parses and type-checks `source`.
 * @throws ExpressionError with the position of the first problem.
 * @example compileWhen('args.amount > 50000 && tool_name.startsWith("payments.")')
 */
export function compileWhen(source: string): CompiledWhen {
  let program: ReturnType<Environment['parse']>;
  try {
    program = environment().parse(source);
  } catch (error) {
    throw expressionError(source, error);
  }
  for (const { pattern, start } of useLinearMatches(program.ast as object)) {
    try {
      re2Pattern(pattern);
    } catch (error) {
      throw expressionError(source, { range: { start }, summary: `not an RE2 regular expression: ${message(error)}` });
    }
  }
  const checked = program.check();
  if (!checked.valid) throw expressionError(source, checked.error);
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    throw new ExpressionError(`the expression gives a ${checked.type}, not true or false`, 1, 1, source);
  }
  return {
    source,
    evaluate(context) {
      let value: unknown;
      try {
        value = program(context as unknown as Record<string, unknown>);
      } catch (error) {
        if (error instanceof PolicyBudgetError) throw error;
        throw expressionError(source, error);
      }
      if (typeof value !== 'boolean')
        throw new ExpressionError(`the expression gave ${typeof value}, not true or false`, 1, 1, source);
      return value;
    },
  };
}

/** Turns a cel-js error (parse, type or evaluation) into an {@link ExpressionError} with a line and column. */
function expressionError(source: string, error: unknown): ExpressionError {
  const e = error as Partial<ParseError> & { message?: string };
  const start = e.range?.start ?? 0;
  const before = source.slice(0, start);
  const line = before.split('\n').length;
  const column = start - before.lastIndexOf('\n');
  const summary = internalNames(e.summary ?? String(e.message ?? error).split('\n')[0]!);
  return new ExpressionError(summary, line, column, internalNames(String(e.message ?? summary)));
}

/** The renamed `matches` said as the author wrote it. */
function internalNames(text: string): string {
  return text.replaceAll(RE2_MATCHES, 'matches');
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
