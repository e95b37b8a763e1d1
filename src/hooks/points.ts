/**
 * @module hooks/points
 * The catalogue of hook points: how each one runs (a modifying chain or parallel notifications) and which
 * context field a `modify` result replaces.
 */
import type { BuiltinHookPoint, HookContext, HookPoint } from './types.js';

/**
 * How a point runs its handlers.
 * - `modifying`: one by one by priority, each seeing the previous one's data; a `deny` ends the chain.
 * - `notification`: all at once; each failure is isolated; `deny`, `modify` and `ask_user` are ignored.
 */
export type HookPointKind = 'modifying' | 'notification';

/** The context field a point's `modify` results replace. */
export type HookDataField = 'toolArgs' | 'result' | 'text' | 'messages' | 'data';

/** How a point behaves. */
export interface HookPointSpec {
  /** Chain or broadcast. */
  kind: HookPointKind;
  /** The field `modify` replaces; absent = the point cannot be modified. */
  dataField?: HookDataField;
}

/** The built-in points, in the order an agent turn meets them. */
export const HOOK_POINTS: readonly BuiltinHookPoint[] = [
  'session:start',
  'message:received',
  'llm:input',
  'llm:output',
  'tool:pre',
  'tool:post',
  'tool:error',
  'session:end',
];

const BUILTIN_SPECS: Record<BuiltinHookPoint, HookPointSpec> = {
  'session:start': { kind: 'notification' },
  'session:end': { kind: 'notification' },
  'tool:error': { kind: 'notification' },
  'message:received': { kind: 'modifying', dataField: 'text' },
  'llm:input': { kind: 'modifying', dataField: 'messages' },
  'llm:output': { kind: 'modifying', dataField: 'text' },
  'tool:pre': { kind: 'modifying', dataField: 'toolArgs' },
  'tool:post': { kind: 'modifying', dataField: 'result' },
};

/** Custom points not declared otherwise chain like the built-in modifying points and carry `data`. */
export const DEFAULT_CUSTOM_POINT: HookPointSpec = { kind: 'modifying', dataField: 'data' };

/** Whether `point` is one of the eight built-in points. */
export function isBuiltinPoint(point: string): point is BuiltinHookPoint {
  return Object.hasOwn(BUILTIN_SPECS, point);
}

/** The spec of a built-in point, or undefined for a custom one. */
export function builtinPointSpec(point: HookPoint): HookPointSpec | undefined {
  return isBuiltinPoint(point) ? BUILTIN_SPECS[point] : undefined;
}

/** Reads the point's payload out of a context. */
export function readData(context: HookContext, spec: HookPointSpec): unknown {
  return spec.dataField ? context[spec.dataField] : undefined;
}

/** Returns a copy of `context` whose payload is `data`. */
export function withData(context: HookContext, spec: HookPointSpec, data: unknown): HookContext {
  if (!spec.dataField) return context;
  return { ...context, [spec.dataField]: data } as HookContext;
}

/** Valid point names: built-ins, or `namespace:event` made of letters, digits, `_`, `-` and `.`. */
export function isValidPointName(point: string): boolean {
  return isBuiltinPoint(point) || /^[a-z0-9_.-]+:[a-z0-9_.-]+$/i.test(point);
}
