import { describe, expect, it } from 'vitest';
import { compileWhen, ExpressionError, loadPolicy, matchPolicy } from '../../../src/policy/index.js';
import { MAX_MATCH_INPUT } from '../../../src/policy/regex.js';
import { yamlNestingDepth } from '../../../src/utils/yaml-bounds.js';

const context = (args: Record<string, unknown>) => ({
  args,
  tool_name: 't',
  agent_id: null,
  user_id: null,
  session_id: null,
  metadata: {},
});

describe('when: matches() with RE2 semantics', () => {
  it('matches anywhere unless anchored, in both of CEL forms, inside macros too', () => {
    expect(compileWhen('args.c.matches("push")').evaluate(context({ c: 'git push' }))).toBe(true);
    expect(compileWhen('args.c.matches("^push")').evaluate(context({ c: 'git push' }))).toBe(false);
    expect(compileWhen('matches(args.c, "(?i)^GIT")').evaluate(context({ c: 'git push' }))).toBe(true);
    expect(compileWhen('args.l.exists(x, x.matches("^b"))').evaluate(context({ l: ['a', 'bc'] }))).toBe(true);
    expect(compileWhen('args.l.all(x, x.matches("^b"))').evaluate(context({ l: ['a', 'bc'] }))).toBe(false);
  });

  it('a pattern RE2 does not accept (a backreference) is a load error with its position', () => {
    expect(() => compileWhen('args.c.matches("(a)\\\\1")')).toThrow(ExpressionError);
    expect(() => compileWhen('args.c.matches("(a)\\\\1")')).toThrow(/column 16: not an RE2 regular expression/);
  });

  it('names matches() as the author wrote it in errors', () => {
    expect(() => compileWhen('"a".matches(1)')).toThrow(/matches/);
    expect(() => compileWhen('"a".matches(1)')).not.toThrow(/re2/);
  });
});

describe('a policy evaluation has a budget, and running out of it never falls through to an allow', () => {
  const policy = loadPolicy(
    {
      policies: [
        { name: 'no-weird', match: { when: 'args.b.matches("^[a-z]+$")' }, decision: 'deny' },
        { name: 'rest', match: {}, decision: 'allow' },
      ],
      default: { decision: 'allow' },
    },
    't',
  );

  it('a string too long to match within the budget asks instead of skipping the deny rule', () => {
    const { rule, explanation } = matchPolicy(
      policy,
      { toolName: 'x', toolArgs: { b: 'a'.repeat(MAX_MATCH_INPUT + 1) } },
      true,
    );
    expect(rule.decision).toBe('ask');
    expect(explanation.join('\n')).toMatch(/no-weird: not evaluated/);
    expect(matchPolicy(policy, { toolName: 'x', toolArgs: { b: 'abc' } }).rule.name).toBe('no-weird');
  });
});

describe('yamlNestingDepth', () => {
  it('counts flow brackets, indentation and dashes; a real policy stays shallow', () => {
    expect(yamlNestingDepth('policies:\n  - name: a\n    match: { tool: [a, b] }\n')).toBeLessThan(8);
    expect(yamlNestingDepth(`a: ${'['.repeat(100)}`)).toBeGreaterThan(32);
    expect(yamlNestingDepth('- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - a')).toBeGreaterThan(
      32,
    );
  });
});
