/**
 * @module hooks/pipeline
 * Runs the handlers of one point and folds their results into a {@link HookOutcome}: a chain for modifying
 * points (Omni, PulseBot, FIM One), a broadcast for notification points, Amplifier's precedence either way.
 */
import type { Clock } from '../utils/clock.js';
import type { InjectionBudget } from './budgets.js';
import { invokeHandler } from './invoke.js';
import type { Invocation, Registration } from './invoke.js';
import { readData, withData } from './points.js';
import type { HookPointSpec } from './points.js';
import { resolveActions } from './precedence.js';
import type {
  ContextInjection,
  HookAction,
  HookContext,
  HookLogger,
  HookOutcome,
  HookResult,
  UserMessage,
} from './types.js';

/** What a pipeline run needs besides the handlers. */
export interface PipelineEnv {
  clock: Clock;
  logger: HookLogger;
  budget: InjectionBudget;
}

type Checked = HookResult & { action: HookAction };

/** Collects the parts of an outcome as results come in. */
class OutcomeBuilder {
  readonly actions: HookAction[] = [];
  readonly sideEffects: string[] = [];
  readonly injections: ContextInjection[] = [];
  readonly userMessages: UserMessage[] = [];
  approval?: HookOutcome['approval'];
  askReason?: string;
  askedBy?: string;

  constructor(
    private readonly context: HookContext,
    private readonly env: PipelineEnv,
  ) {}

  /** Records everything but the data change and the deny, which only the chain can honour. */
  absorb(name: string, result: Checked): void {
    if (result.sideEffects) this.sideEffects.push(...result.sideEffects);
    if (result.userMessage !== undefined) {
      this.userMessages.push({ message: result.userMessage, level: result.userMessageLevel ?? 'info', source: name });
    }
    if (typeof result.contextInjection === 'string') this.inject(name, result);
    if (result.action === 'ask_user' && !this.approval) {
      this.approval = { ...result.approval, source: name };
      this.askReason = result.reason;
      this.askedBy = name;
      this.actions.push('ask_user');
    }
  }

  private inject(name: string, result: Checked): void {
    const content = result.contextInjection as string;
    const taken = this.env.budget.take(this.context.sessionId, content);
    if (!taken.ok) {
      // Dropped whole: a truncated hint can say the opposite of the full one.
      this.env.logger.warn('context injection dropped', {
        hook: name,
        point: this.context.point,
        why: taken.refusal,
        bytes: taken.bytes,
      });
      return;
    }
    this.injections.push({
      content,
      role: result.contextInjectionRole ?? 'system',
      ephemeral: result.ephemeral ?? false,
      source: name,
    });
    this.actions.push('inject_context');
  }

  build(extra: Partial<HookOutcome>): HookOutcome {
    const action = extra.action ?? resolveActions(this.actions);
    const outcome: HookOutcome = { action, sideEffects: this.sideEffects };
    if (this.injections.length) outcome.contextInjections = this.injections;
    if (this.userMessages.length) outcome.userMessages = this.userMessages;
    if (action === 'ask_user') {
      outcome.approval = this.approval;
      outcome.decidedBy = this.askedBy;
      if (this.askReason !== undefined) outcome.reason = this.askReason;
    }
    return { ...outcome, ...extra, action };
  }
}

/** Runs handlers one by one, each seeing the data the previous ones left; a deny or a stop ends the chain. */
export async function runChain(
  registrations: Registration[],
  context: HookContext,
  spec: HookPointSpec,
  env: PipelineEnv,
): Promise<HookOutcome> {
  const builder = new OutcomeBuilder(context, env);
  let current = context;
  let modified = false;
  const dataPart = (): Partial<HookOutcome> => (modified ? { data: readData(current, spec) } : {});

  for (const registration of registrations) {
    const invocation = await invokeHandler(registration, current, env.clock);
    if (invocation.kind === 'skipped') continue;
    if (invocation.kind === 'failed') {
      if (failsClosed(registration, context)) {
        env.logger.error('hook failed; denying the tool call', failureFields(registration, invocation));
        const reason = `a safety check ("${registration.name}") could not complete, so the call was stopped: ${invocation.error.message}`;
        return builder.build({ action: 'deny', reason, decidedBy: registration.name, ...dataPart() });
      }
      env.logger.error('hook failed; skipped', failureFields(registration, invocation));
      continue;
    }
    const { result } = invocation;
    builder.absorb(registration.name, result);
    if (result.action === 'deny') {
      return builder.build({
        action: 'deny',
        reason: result.reason ?? `denied by ${registration.name}`,
        decidedBy: registration.name,
        ...dataPart(),
      });
    }
    if (result.action === 'modify' && result.data !== undefined) {
      if (spec.dataField) {
        current = withData(current, spec, result.data);
        modified = true;
        builder.actions.push('modify');
      } else {
        env.logger.warn('modify ignored: this point carries no data', {
          hook: registration.name,
          point: context.point,
        });
      }
    }
    if (result.stop) return builder.build({ stoppedBy: registration.name, ...dataPart() });
  }
  return builder.build(dataPart());
}

/** Runs every handler at once; failures and blocking requests are logged, never propagated. */
export async function runBroadcast(
  registrations: Registration[],
  context: HookContext,
  env: PipelineEnv,
): Promise<HookOutcome> {
  const builder = new OutcomeBuilder(context, env);
  // Each handler gets its own copy: notifications are read-only and must not see each other's edits.
  const invocations = await Promise.all(
    registrations.map((r) => invokeHandler(r, structuredCloneSafe(context), env.clock)),
  );
  invocations.forEach((invocation, i) => {
    const registration = registrations[i] as Registration;
    if (invocation.kind === 'skipped') return;
    if (invocation.kind === 'failed') {
      env.logger.error('notification hook failed; isolated', failureFields(registration, invocation));
      return;
    }
    const { action } = invocation.result;
    if (action === 'deny' || action === 'modify' || action === 'ask_user') {
      env.logger.warn(`${action} ignored at a notification point`, { hook: registration.name, point: context.point });
    }
    builder.absorb(registration.name, {
      ...invocation.result,
      action: action === 'inject_context' ? action : 'continue',
    });
  });
  return builder.build({});
}

function failsClosed(registration: Registration, context: HookContext): boolean {
  return context.point === 'tool:pre' && !registration.failOpen;
}

function failureFields(
  registration: Registration,
  invocation: Extract<Invocation, { kind: 'failed' }>,
): Record<string, unknown> {
  return {
    hook: registration.name,
    point: registration.point,
    error: invocation.error.message,
    timedOut: invocation.timedOut,
  };
}

function structuredCloneSafe(context: HookContext): HookContext {
  try {
    return structuredClone(context);
  } catch {
    // Contexts holding functions or class instances cannot be cloned; a shallow copy still isolates the top level.
    return { ...context, metadata: { ...context.metadata } };
  }
}
