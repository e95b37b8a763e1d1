/**
 * @module policy/load
 * Builds a {@link Policy} from the YAML config's `policies:` and `default:` sections. Every problem is a start-up
 * error naming the file, the rule (index and name) and, for a `when` expression, the line and column in it.
 */
import { z } from 'zod';
import { ValidationError, type FieldProblem } from '../api/errors.js';
import { fieldProblems } from '../api/validation.js';
import { compileWhen, ExpressionError } from './expression.js';
import { defaultRuleSchema, ruleSchema } from './schema.js';
import type { DefaultRule, Policy, PolicyRule } from './types.js';
import { emptyPolicy } from './types.js';

/** The policy sections of the config file, as parsed YAML (not yet validated). */
export interface PolicySections {
  policies?: unknown;
  default?: unknown;
}

/**
 * Validates and compiles the policy sections of the file at `source`.
 * @throws ValidationError listing every problem, each path like `tollgate.yaml: policies[1] "big-payments".match.when`.
 * @example const policy = loadPolicy(parseYaml(text), 'tollgate.yaml');
 */
export function loadPolicy(sections: PolicySections, source: string): Policy {
  const problems: FieldProblem[] = [];
  const rules: PolicyRule[] = [];
  const list = z.array(z.unknown()).safeParse(sections.policies ?? []);
  if (!list.success) problems.push({ path: `${source}: policies`, message: 'expected a list of rules' });
  const seen = new Map<string, number>();
  (list.data ?? []).forEach((raw, index) => {
    const name = typeof (raw as { name?: unknown })?.name === 'string' ? (raw as { name: string }).name : null;
    const where = `${source}: policies[${index}]${name ? ` "${name}"` : ''}`;
    const parsed = ruleSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push(...fieldProblems(parsed.error.issues, where, where));
      return;
    }
    const { when: whenSource, ...match } = parsed.data.match;
    const earlier = seen.get(parsed.data.name);
    if (earlier !== undefined)
      problems.push({
        path: `${where}.name`,
        message: `the name is used by policies[${earlier}] too; names must be unique`,
      });
    if (parsed.data.name === 'default')
      problems.push({ path: `${where}.name`, message: '"default" is the name of the default: rule' });
    seen.set(parsed.data.name, index);
    let when = null;
    if (whenSource !== undefined) {
      try {
        when = compileWhen(whenSource);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        problems.push({ path: `${where}.match.when`, message: `${error.message}\n${error.excerpt}` });
      }
    }
    rules.push({ ...parsed.data, match, when });
  });
  let fallback: DefaultRule = emptyPolicy().default;
  if (sections.default !== undefined) {
    const parsed = defaultRuleSchema.safeParse(sections.default);
    if (parsed.success) fallback = { ...parsed.data, name: 'default' };
    else problems.push(...fieldProblems(parsed.error.issues, `${source}: default`, `${source}: default`));
  }
  if (problems.length) {
    const first = problems[0]!;
    throw new ValidationError(
      `${first.path}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      problems,
    );
  }
  return { rules, default: fallback, source };
}
