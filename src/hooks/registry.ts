/**
 * @module hooks/registry
 * {@link HookRegistry}: where hooks are registered, points declared, and points run.
 */
import { systemClock } from '../utils/clock.js';
import type { Clock } from '../utils/clock.js';
import { InjectionBudget } from './budgets.js';
import type { InjectionBudgetOptions } from './budgets.js';
import { ContributionChannels } from './contributions.js';
import type { Contributor } from './contributions.js';
import type { Registration } from './invoke.js';
import { runBroadcast, runChain } from './pipeline.js';
import type { PipelineEnv } from './pipeline.js';
import { DEFAULT_CUSTOM_POINT, builtinPointSpec, isBuiltinPoint, isValidPointName } from './points.js';
import type { HookPointSpec } from './points.js';
import type { HookContext, HookHandler, HookLogger, HookOutcome, HookPoint } from './types.js';
import { stderrHookLogger } from './types.js';

/** Default priority of a registration; lower runs earlier. */
export const DEFAULT_PRIORITY = 100;
/** Default per-call timeout of a handler. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/** Options of {@link HookRegistry.register}. */
export interface RegisterOptions {
  /** Lower runs earlier; ties run in registration order. Default: the handler's own `priority`, else 100. */
  priority?: number;
  /** Name for logs and reasons. Default: the handler's `name`, else the function name, else `anonymous`. */
  name?: string;
  /** On `tool:pre`, let the call through when this handler throws or times out (default: deny). */
  failOpen?: boolean;
  /** Per-call timeout in ms; 0 = none. Default: the handler's own `timeoutMs`, else the registry's. */
  timeoutMs?: number;
}

/** Options of `new HookRegistry()`. */
export interface HookRegistryOptions {
  /** Time source for hook timeouts and time-based built-ins. */
  clock?: Clock;
  /** Where failures and dropped injections are reported; default one JSON line per event on stderr. */
  logger?: HookLogger;
  /** Default per-call timeout of handlers in ms (default 30 s; 0 = none). */
  defaultTimeoutMs?: number;
  /** Limits on `inject_context` (Amplifier's budgets). */
  injectionBudget?: InjectionBudgetOptions;
  /** Marks every run as an evaluation run: the approval gate is bypassed, nothing else is. */
  evaluationRun?: boolean;
}

/** Options of {@link HookRegistry.child}. */
export interface ChildRegistryOptions {
  /** Overrides the parent's evaluation-run flag for this child. */
  evaluationRun?: boolean;
}

/** What {@link HookRegistry.run} accepts: the point fills itself in, metadata defaults to `{}`. */
export type HookRunInput = Partial<Omit<HookContext, 'point'>>;

/** A registered hook as {@link HookRegistry.list} shows it. */
export interface RegisteredHook {
  name: string;
  point: string;
  priority: number;
  failOpen: boolean;
  timeoutMs: number;
  /** True when the hook comes from a parent registry. */
  inherited: boolean;
}

let nextSeq = 0;

/**
 * Hooks by point. Modifying points run their handlers as a chain by priority; notification points run
 * theirs in parallel. A child registry (for sub-agents) sees its parent's hooks, live, plus its own.
 * @example
 * const registry = new HookRegistry();
 * const off = registry.register('tool:pre', (ctx) =>
 *   ctx.toolName === 'shell' ? { action: 'deny', reason: 'no shell here' } : undefined, { name: 'no-shell' });
 * const outcome = await registry.run('tool:pre', { toolName: 'shell', toolArgs: {} });
 * // outcome.action === 'deny'
 * off();
 */
export class HookRegistry {
  /** Time source shared by the engine and the built-ins. */
  readonly clock: Clock;
  /** Where failures are reported. */
  readonly logger: HookLogger;
  /** Shared with children: a sub-agent's injections count against the same turn. */
  readonly injectionBudget: InjectionBudget;
  private readonly defaultTimeoutMs: number;
  private readonly ownEvaluationRun: boolean | undefined;
  private readonly registrations = new Map<string, Registration[]>();
  private readonly specs = new Map<string, HookPointSpec>();
  private readonly contributions: ContributionChannels;

  constructor(
    options: HookRegistryOptions = {},
    private readonly parent?: HookRegistry,
  ) {
    this.clock = options.clock ?? parent?.clock ?? systemClock;
    this.logger = options.logger ?? parent?.logger ?? stderrHookLogger;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? parent?.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    this.injectionBudget = parent?.injectionBudget ?? new InjectionBudget(options.injectionBudget);
    this.ownEvaluationRun = options.evaluationRun;
    this.contributions = new ContributionChannels(this.logger, parent?.contributions);
  }

  /** True when runs of this registry are evaluation runs (inherited from the parent unless overridden). */
  get evaluationRun(): boolean {
    return this.ownEvaluationRun ?? this.parent?.evaluationRun ?? false;
  }

  /** Adds `handler` at `point`; returns a function that removes exactly this registration. */
  register(point: HookPoint, handler: HookHandler, options: RegisterOptions = {}): () => void {
    if (!isValidPointName(point))
      throw new TypeError(`invalid hook point ${JSON.stringify(point)}: use "namespace:event"`);
    const own = typeof handler === 'function' ? undefined : handler;
    if (!own && typeof handler !== 'function')
      throw new TypeError('a hook must be a function or an object with execute()');
    if (own && typeof own.execute !== 'function') throw new TypeError('a hook object needs an execute(context) method');
    const registration: Registration = {
      point,
      handler,
      name: options.name ?? own?.name ?? (typeof handler === 'function' && handler.name ? handler.name : 'anonymous'),
      priority: options.priority ?? own?.priority ?? DEFAULT_PRIORITY,
      failOpen: options.failOpen ?? false,
      timeoutMs: options.timeoutMs ?? own?.timeoutMs ?? this.defaultTimeoutMs,
      seq: nextSeq++,
    };
    const list = this.registrations.get(point) ?? [];
    list.push(registration);
    this.registrations.set(point, list);
    return () => {
      const current = this.registrations.get(point);
      if (current)
        this.registrations.set(
          point,
          current.filter((r) => r !== registration),
        );
    };
  }

  /** Declares how a custom point runs (e.g. `{ kind: 'notification' }`); built-in points cannot be redeclared. */
  declarePoint(point: string, spec: Partial<HookPointSpec> & Pick<HookPointSpec, 'kind'>): void {
    if (isBuiltinPoint(point)) throw new TypeError(`"${point}" is a built-in point and cannot be redeclared`);
    if (!isValidPointName(point))
      throw new TypeError(`invalid hook point ${JSON.stringify(point)}: use "namespace:event"`);
    this.specs.set(point, {
      kind: spec.kind,
      dataField: spec.dataField ?? (spec.kind === 'modifying' ? 'data' : undefined),
    });
  }

  /** How `point` runs here: built-in spec, a declaration (own or inherited), or the custom default. */
  pointSpec(point: HookPoint): HookPointSpec {
    return builtinPointSpec(point) ?? this.declaredSpec(point) ?? DEFAULT_CUSTOM_POINT;
  }

  /** Runs every handler of `point` (inherited ones included) and resolves their results into one outcome. */
  async run(point: HookPoint, input: HookRunInput = {}): Promise<HookOutcome> {
    const context: HookContext = { ...input, point, metadata: input.metadata ?? {} };
    if (this.evaluationRun && context.evaluationRun === undefined) context.evaluationRun = true;
    const registrations = this.collect(point);
    const spec = this.pointSpec(point);
    const env: PipelineEnv = { clock: this.clock, logger: this.logger, budget: this.injectionBudget };
    if (registrations.length === 0) return { action: 'continue', sideEffects: [] };
    return spec.kind === 'notification'
      ? runBroadcast(registrations, context, env)
      : runChain(registrations, context, spec, env);
  }

  /** The hooks that would run at `point` (or at every point), in run order. */
  list(point?: HookPoint): RegisteredHook[] {
    const points = point ? [point] : [...this.allPoints()];
    return points.flatMap((p) =>
      this.collect(p).map((r) => ({
        name: r.name,
        point: r.point,
        priority: r.priority,
        failOpen: r.failOpen,
        timeoutMs: r.timeoutMs,
        inherited: !this.registrations.get(p)?.includes(r),
      })),
    );
  }

  /** A registry for a sub-agent: it inherits this one's hooks, declarations, contributors, clock and budget. */
  child(options: ChildRegistryOptions = {}): HookRegistry {
    return new HookRegistry({ evaluationRun: options.evaluationRun }, this);
  }

  /** Starts a new turn for a session: its context-injection budget is full again. */
  beginTurn(sessionId?: string): void {
    this.injectionBudget.beginTurn(sessionId);
  }

  /** Registers a contributor on a channel (Amplifier's pull-based aggregation); returns its remover. */
  registerContributor<T>(channel: string, fn: Contributor<T>, name?: string): () => void {
    return this.contributions.register(channel, fn, name);
  }

  /** Pulls from every contributor of the channel (the parent's first); failures are logged and skipped. */
  collectContributions<T = unknown>(channel: string): Promise<T[]> {
    return this.contributions.collect<T>(channel);
  }

  private collect(point: string): Registration[] {
    const inherited = this.parent?.collect(point) ?? [];
    const own = this.registrations.get(point) ?? [];
    return [...inherited, ...own].sort((a, b) => a.priority - b.priority || a.seq - b.seq);
  }

  private declaredSpec(point: string): HookPointSpec | undefined {
    return this.specs.get(point) ?? this.parent?.declaredSpec(point);
  }

  private allPoints(): Set<string> {
    const points = new Set(this.parent?.allPoints() ?? []);
    for (const p of this.registrations.keys()) points.add(p);
    return points;
  }
}
