import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { compileWhen, loadPolicy } from '../../../src/policy/index.js';

function loadError(sections: Parameters<typeof loadPolicy>[0]): ValidationError {
  try {
    loadPolicy(sections, 'conf/tollgate.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected the policy to be refused');
}

describe('loadPolicy errors name the file, the rule and the position', () => {
  it('a when that does not parse: line and column inside the expression', () => {
    const error = loadError({
      policies: [
        { name: 'ok', match: { tool: 'a' } },
        { name: 'big-payments', match: { when: 'args.amount >' } },
      ],
    });
    expect(error.message).toMatch(
      /^conf\/tollgate\.yaml: policies\[1\] "big-payments"\.match\.when: line 1, column 14: Unexpected token: EOF/,
    );
    expect(error.message).toContain('args.amount >\n'); // CEL's excerpt with a caret under the position
  });

  it('a when on a second line', () => {
    const error = loadError({ policies: [{ name: 'multi', match: { when: 'args.a == 1 &&\n  args.b ==' } }] });
    expect(error.errors?.[0]?.message).toMatch(/^line 2, column 12: /);
  });

  it('an unknown variable is a type error at load, with its position', () => {
    const error = loadError({ policies: [{ name: 'typo', match: { when: 'arg.amount > 5' } }] });
    expect(error.message).toMatch(/policies\[0\] "typo"\.match\.when: line 1, column 1: Unknown variable: arg/);
  });

  it('an expression that is not true/false is refused', () => {
    expect(loadError({ policies: [{ name: 'n', match: { when: 'tool_name' } }] }).message).toMatch(
      /gives a string, not true or false/,
    );
  });

  it('shape errors name the field; duplicate names and bad grants are refused', () => {
    const error = loadError({
      policies: [
        { name: 'a', decision: 'maybe' },
        { name: 'a', match: { tol: 'x' } },
        { name: 'b', grants: [{ label: 'for an hour', ttl_s: 3600, scope: ['password'] }] },
        { match: { tool: 'x' } },
      ],
      default: { decision: 'allow', approvers: ['nobody'] },
    });
    const paths = error.errors!.map((p) => p.path);
    expect(paths).toContain('conf/tollgate.yaml: policies[0] "a".decision');
    expect(paths).toContain('conf/tollgate.yaml: policies[1] "a".match');
    expect(paths).toContain('conf/tollgate.yaml: policies[2] "b".grants[0].scope[0]');
    expect(paths).toContain('conf/tollgate.yaml: policies[3].name');
    expect(paths).toContain('conf/tollgate.yaml: default.approvers[0]');
    expect(loadError({ policies: [{ name: 'x' }, { name: 'x' }] }).message).toMatch(
      /policies\[1\] "x"\.name: the name is used by policies\[0\] too/,
    );
  });

  it('policies must be a list', () => {
    expect(loadError({ policies: { name: 'x' } }).message).toBe(
      'conf/tollgate.yaml: policies: expected a list of rules',
    );
  });
});

describe('compileWhen', () => {
  it('evaluates comparisons, in, && || ! and string functions over args and ids', () => {
    const ctx = {
      args: { env: 'prod', tags: ['a', 'b'], n: 3 },
      tool_name: 'deploy',
      agent_id: 'bot',
      user_id: null,
      session_id: null,
      metadata: {},
    };
    expect(compileWhen('args.env in ["prod", "staging"] && "b" in args.tags').evaluate(ctx)).toBe(true);
    expect(compileWhen('!(args.n >= 3) || agent_id == "bot"').evaluate(ctx)).toBe(true);
    expect(compileWhen('user_id == null && tool_name.startsWith("dep")').evaluate(ctx)).toBe(true);
    expect(compileWhen('has(args.missing)').evaluate(ctx)).toBe(false);
  });
});
