/**
 * The shared argument-hash vectors (test/vectors/args-hash.json): the TypeScript side. The Python package's
 * clients/python/tests/test_args_hash.py reads the same file, so a verdict hashed here verifies there byte for byte.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { argsSha256, canonicalJson } from '../../../src/requests/args-hash.js';

interface Vector {
  name: string;
  tool: string;
  args_json: string;
  canonical: string;
  sha256: string;
}

const { cases } = JSON.parse(readFileSync(new URL('../../vectors/args-hash.json', import.meta.url), 'utf8')) as {
  cases: Vector[];
};

describe('argument-hash vectors shared with the Python package', () => {
  it('has the cases the Python side reads', () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const args = JSON.parse(c.args_json) as Record<string, unknown>;
    expect(canonicalJson({ tool_name: c.tool, tool_args: args })).toBe(c.canonical);
    expect(argsSha256(c.tool, args)).toBe(c.sha256);
  });
});
