/**
 * @module utils/patterns
 * Shell-style wildcards for tool names, as Python's fnmatch reads them (PulseBot's policy uses those):
 * `*` any run, `?` one character, `[abc]` / `[a-z]` a set, `[!abc]` its complement. Matching is case-sensitive.
 */

const cache = new Map<string, RegExp>();

/** Compiles one wildcard pattern to an anchored RegExp. */
export function wildcardToRegExp(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else if (ch === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) {
        source += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      source += `[${negate ? '^' : ''}${body.replace(/[\\^\]]/g, '\\$&')}]`;
      i = close;
    } else source += ch.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  const re = new RegExp(`^${source}$`, 's');
  cache.set(pattern, re);
  return re;
}

/** Whether `name` matches `pattern`. */
export function matchesWildcard(name: string, pattern: string): boolean {
  return wildcardToRegExp(pattern).test(name);
}

/** Whether `name` matches any of `patterns`. */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => matchesWildcard(name, p));
}
