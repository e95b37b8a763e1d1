/**
 * @module hooks/builtin/passthrough
 * `passthrough`: lets everything through. A placeholder, or a way to make a profile's list non-empty.
 */
import { z } from 'zod';
import type { HookObject } from '../types.js';
import { defineBuiltin } from './types.js';

/** The `passthrough` hook. */
export const passthroughBuiltin = defineBuiltin({
  name: 'passthrough',
  summary: 'allows every call; a placeholder',
  schema: z.strictObject({}).default({}),
  create: () => passthroughHook(),
});

/** Builds a hook that always continues. */
export function passthroughHook(): HookObject {
  return { name: 'passthrough', execute: () => ({ action: 'continue' }) };
}
