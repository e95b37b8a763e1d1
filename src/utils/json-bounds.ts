/**
 * @module utils/json-bounds
 * Bounds on the JSON values tollgate accepts (tool arguments, metadata, approver-edited arguments, hook bodies).
 * A body under the size limit can still nest 10,000 levels deep, and every recursive walk after parsing (hashing,
 * serializing, rendering a card) would overflow the stack: such values are refused up front with a 400 naming the
 * field. The check itself walks iteratively, so it cannot overflow whatever it is given. Keys that name a prototype
 * (`__proto__`, `constructor`, `prototype`) are refused too: `JSON.parse` keeps `__proto__` as an own key, but the
 * first copy of the value (a spread, zod's record) makes it the copy's prototype instead, so the arguments approvers
 * see would differ from the ones an integration holding the raw text passes on.
 */
import { z } from 'zod';

/** Deepest nesting accepted in one JSON value (objects and arrays). Real tool arguments stay far below it. */
export const MAX_JSON_DEPTH = 64;

/** The depth of `value` (0 for a scalar), computed without recursion; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, here]);
  }
  return deepest;
}

/** A JSON object field whose nesting stays within {@link MAX_JSON_DEPTH}. */
export const boundedJsonObject = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
  if (jsonDepth(value) > MAX_JSON_DEPTH)
    ctx.addIssue({ code: 'custom', message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
});

/** Any JSON value whose nesting stays within {@link MAX_JSON_DEPTH}. */
export const boundedJsonValue = z.unknown().superRefine((value, ctx) => {
  if (jsonDepth(value) > MAX_JSON_DEPTH)
    ctx.addIssue({ code: 'custom', message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
});

/** Keys refused anywhere in a JSON body: a copy of the value turns `__proto__` into a prototype (and drops it). */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path (keys and array indices, outermost first) of the first {@link PROTOTYPE_KEYS} key in `value`, or null when
 * there is none. Reads own keys only, without recursion, so it must run on what `JSON.parse` returned, before any copy.
 */
export function prototypeKeyPath(value: unknown): (string | number)[] | null {
  // Each entry remembers its parent instead of its whole path: a path is built only for the key found.
  interface Step {
    node: unknown;
    key: string | number | null;
    up: Step | null;
  }
  const stack: Step[] = [{ node: value, key: null, up: null }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    const { node } = step;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], key: i, up: step });
      continue;
    }
    const keys = Object.keys(node);
    const bad = keys.find((k) => PROTOTYPE_KEYS.has(k));
    if (bad !== undefined) {
      const path: (string | number)[] = [bad];
      for (let at: Step | null = step; at?.key != null; at = at.up) path.unshift(at.key);
      return path;
    }
    for (let i = keys.length - 1; i >= 0; i--)
      stack.push({ node: (node as Record<string, unknown>)[keys[i]!], key: keys[i]!, up: step });
  }
  return null;
}
