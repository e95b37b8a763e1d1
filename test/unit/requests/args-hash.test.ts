import { describe, expect, it } from 'vitest';
import { argsSha256, canonicalJson } from '../../../src/requests/args-hash.js';

/** The canonical form as it was first defined: JSON.stringify, each object's entries sorted by key. */
const reference = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );

/** A deterministic generator (xorshift), so a failure names a value that can be built again. */
function generator(seed: number) {
  let s = seed;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const keys = ['b', 'a', 'é', 'Z', 'tool_args', '', 'a b', '"q"', '\u2028', 'aa', 'ab', '__proto__', '10', '2', 'x1'];
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3)
      return [null, true, false, 0, -0, 1.5, -3e21, Number.NaN, 'text', 'ünï\n"\\', ''][Math.floor(next() * 11)];
    if (r < 0.55) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 5); i > 0; i--) object[keys[Math.floor(next() * keys.length)]!] = value(depth + 1);
    return object;
  };
  return value;
}

describe('canonicalJson', () => {
  it('writes what the sorted JSON.stringify writes, for values of every JSON kind nested four deep', () => {
    const value = generator(0x2545f491);
    for (let i = 0; i < 5000; i++) {
      const v = JSON.parse(JSON.stringify({ tool_name: 't', tool_args: value(0) })) as unknown;
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });

  it('writes what the sorted JSON.stringify writes for what JSON itself does not hold', () => {
    const values: unknown[] = [
      { at: new Date(Date.UTC(2026, 0, 2)), b: 1 },
      { b: undefined, a: [undefined, () => 1, Symbol('s')], c: { toJSON: () => ({ z: 1, y: 2 }) } },
      { 10: 'ten', 2: 'two', b: 'b', a: 'a' },
      new Map([['a', 1]]),
      Object.assign(Object.create(null) as Record<string, unknown>, { b: 2, a: 1 }),
      // eslint-disable-next-line no-sparse-arrays
      [1, , 3],
      'plain',
      42,
    ];
    for (const v of values) expect(canonicalJson(v)).toBe(reference(v));
  });

  it('fails where the sorted JSON.stringify fails, with the same error: a cycle (each level is a new object, so the stack overflows) and a bigint', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(() => reference(cycle)).toThrow(RangeError);
    expect(() => canonicalJson(cycle)).toThrow(RangeError);
    expect(() => reference({ n: 1n })).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });

  it('hashes equal arguments equally whatever their key order', () => {
    expect(argsSha256('pay', { b: { y: 1, x: [2, { d: 1, c: 2 }] }, a: 'z' })).toBe(
      argsSha256('pay', { a: 'z', b: { x: [2, { c: 2, d: 1 }], y: 1 } }),
    );
  });
});
