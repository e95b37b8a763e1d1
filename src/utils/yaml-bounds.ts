/**
 * @module utils/yaml-bounds
 * Bounds on YAML text that comes over the network (a candidate policy for the simulation), checked before the text is
 * parsed: the `yaml` parser spends seconds on a 200 KB body of nested brackets, and 100,000 of them exhaust its memory
 * and abort the process. Policies are small and shallow, so the bounds are far from anything real.
 */

/** The largest YAML body accepted (bytes of text). A policy file of hundreds of rules is a few tens of KB. */
export const MAX_YAML_BYTES = 256 * 1024;

/** The deepest nesting accepted (flow brackets plus block indentation levels plus sequence dashes). */
export const MAX_YAML_DEPTH = 32;

/**
 * An upper bound of the nesting depth of `text`, read in one pass without parsing: open `[`/`{` (quotes are not
 * skipped, so a bracket inside a string counts too: it can only over-count) plus the levels of indentation and the
 * `- ` markers that open a block on each line. Stops counting past `limit`.
 */
export function yamlNestingDepth(text: string, limit = MAX_YAML_DEPTH): number {
  let deepest = 0;
  let flow = 0;
  const indents: number[] = [];
  for (const line of text.split('\n')) {
    let i = 0;
    while (line[i] === ' ') i++;
    if (i === line.length || line[i] === '#') continue;
    while (indents.length > 0 && indents[indents.length - 1]! >= i) indents.pop();
    indents.push(i);
    let dashes = 0;
    while (line[i] === '-' && (line[i + 1] === ' ' || i + 1 === line.length)) {
      dashes++;
      i += 2;
      while (line[i] === ' ') i++;
    }
    for (; i < line.length; i++) {
      const c = line[i];
      if (c === '[' || c === '{') flow++;
      else if ((c === ']' || c === '}') && flow > 0) flow--;
      deepest = Math.max(deepest, indents.length + dashes + flow);
    }
    deepest = Math.max(deepest, indents.length + dashes + flow);
    if (deepest > limit) return deepest;
  }
  return deepest;
}
