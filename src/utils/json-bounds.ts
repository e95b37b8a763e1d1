/**
 * @module utils/json-bounds
 * Bounds on the JSON values tollgate accepts (tool arguments, metadata, approver-edited arguments, hook bodies).
 * A body under the size limit can still nest 10,000 levels deep, and every recursive walk after parsing (hashing,
 * serializing, rendering a card) would overflow the stack: such values are refused up front with a 400 naming the
 * field. The check itself walks iteratively, so it cannot overflow whatever it is given.
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
  if (jsonDepth(value) > MAX_JSON_DEPTH) ctx.addIssue({ code: 'custom', message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
});

/** Any JSON value whose nesting stays within {@link MAX_JSON_DEPTH}. */
export const boundedJsonValue = z.unknown().superRefine((value, ctx) => {
  if (jsonDepth(value) > MAX_JSON_DEPTH) ctx.addIssue({ code: 'custom', message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
});
