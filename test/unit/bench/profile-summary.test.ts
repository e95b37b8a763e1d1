/**
 * The profile summary counts samples per function, and only those inside the window asked for: after the start-up
 * skipped and, when an end is given, before it (one phase of a gateway that served several).
 */
import { describe, expect, it } from 'vitest';
import { summarizeProfile, type CpuProfile } from '../../../bench/profile-summary.js';

const frame = (functionName: string) => ({ functionName, url: 'file:///work/main/src/x.js', lineNumber: 0 });

/** root → a → b; samples 10 ms apart: a, a, b, b, b, a (at 10, 20, …, 60 ms). */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2] },
    { id: 2, callFrame: frame('a'), children: [3] },
    { id: 3, callFrame: frame('b') },
  ],
  startTime: 0,
  endTime: 60_000,
  samples: [2, 2, 3, 3, 3, 2],
  timeDeltas: [10_000, 10_000, 10_000, 10_000, 10_000, 10_000],
};

describe('summarizeProfile', () => {
  it('counts every sample when no window is given', () => {
    const { self, total, totalMs } = summarizeProfile(profile);
    expect(totalMs).toBe(6);
    expect(self.get('a src/x.js:1')).toBe(3);
    expect(self.get('b src/x.js:1')).toBe(3);
    expect(total.get('a src/x.js:1')).toBe(6);
  });

  it('leaves out the samples before the skip and after the end', () => {
    // 25..45 ms: the samples at 30 and 40 ms, both in b.
    const { self, total, totalMs } = summarizeProfile(profile, 25, 45);
    expect(totalMs).toBe(2);
    expect(self.get('b src/x.js:1')).toBe(2);
    expect(self.has('a src/x.js:1')).toBe(false);
    expect(total.get('a src/x.js:1')).toBe(2);
  });
});
