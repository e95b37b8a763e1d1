/**
 * @module bench/profile-summary
 * `tsx bench/profile-summary.ts FILE.cpuprofile [N]`: the N functions with the most self time in a V8 CPU profile
 * (as written by `node --cpu-prof`, e.g. from `npm run bench -- --profile DIR`), and the N with the most total time,
 * skipping the first SKIP_MS milliseconds (start-up) and, when UNTIL_MS is given, what came after it (a gateway that
 * served several phases, as the replicas scenario's first replica: one phase at a time).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/** The parts of a V8 `.cpuprofile` read here. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Self and total share per function (`name file:line`), counted in samples rather than wall time: on a busy machine
 * a descheduled thread takes its next sample late, and weighting by time would charge the wait to whatever ran then.
 * Samples in the first `skipMs` (start-up), and those after `untilMs`, are left out.
 */
export function summarizeProfile(
  profile: CpuProfile,
  skipMs = 0,
  untilMs = Infinity,
): { self: Map<string, number>; total: Map<string, number>; totalMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfById = new Map<number, number>();
  let at = 0;
  let counted = 0;
  profile.samples.forEach((id, i) => {
    at += (profile.timeDeltas[i] ?? 0) / 1000;
    if (at < skipMs || at > untilMs) return;
    counted++;
    selfById.set(id, (selfById.get(id) ?? 0) + 1);
  });
  const label = (n: ProfileNode) => {
    const file = n.callFrame.url
      .replace(/^file:\/\//, '')
      .replace(/^.*\/node_modules\//, 'node_modules/')
      .replace(/^.*\/work\/main\//, '');
    return `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber + 1}`;
  };
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const [id, ms] of selfById) {
    const node = byId.get(id)!;
    self.set(label(node), (self.get(label(node)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur)!);
      if (seen.has(l)) continue;
      seen.add(l);
      total.set(l, (total.get(l) ?? 0) + ms);
    }
  }
  return { self, total, totalMs: counted };
}

function top(map: Map<string, number>, n: number, totalMs: number): string[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(
      ([name, samples]) =>
        `${samples.toFixed(0).padStart(8)} ${((samples / totalMs) * 100).toFixed(1).padStart(5)} %  ${name}`,
    );
}

if (process.argv[1]?.endsWith('profile-summary.ts')) {
  const [file, count, skip, until] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: tsx bench/profile-summary.ts FILE.cpuprofile [N] [SKIP_MS] [UNTIL_MS]\n');
    process.exit(2);
  }
  const n = Number(count ?? 25);
  const { self, total, totalMs } = summarizeProfile(
    JSON.parse(readFileSync(file, 'utf8')) as CpuProfile,
    Number(skip ?? 0),
    until === undefined ? Infinity : Number(until),
  );
  process.stdout.write(
    `profile ${file}: ${totalMs} samples\n\nself (samples, share)\n${top(self, n, totalMs).join('\n')}\n\ntotal (samples, share)\n${top(total, n, totalMs).join('\n')}\n`,
  );
}
