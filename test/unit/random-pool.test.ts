import { describe, expect, it } from 'vitest';
import { pooledRandomBytes } from '../../src/utils/random-pool.js';

describe('pooledRandomBytes', () => {
  it('hands out each byte once, across many refills of the pool', () => {
    // 10,000 × 18 bytes is 44 refills of the 4 KB pool; a repeated or stale slice would repeat a value.
    const values = Array.from({ length: 10_000 }, () => pooledRandomBytes(18).toString('hex'));
    expect(new Set(values).size).toBe(values.length);
    expect(values.every((v) => v.length === 36)).toBe(true);
  });

  it('gives the caller its own buffer: changing one changes no later draw', () => {
    const first = pooledRandomBytes(16);
    first.fill(0);
    const next = Array.from({ length: 300 }, () => pooledRandomBytes(16));
    expect(next.some((b) => b.equals(Buffer.alloc(16)))).toBe(false);
  });

  it('serves sizes larger than a pool slice straight from the CSPRNG', () => {
    const big = pooledRandomBytes(4096);
    expect(big).toHaveLength(4096);
    expect(new Set(big).size).toBeGreaterThan(200);
  });
});
