/**
 * @module bench/load-client
 * The load generator's process. It never shares an event loop with the gateway: the orchestrator (`run.ts`) forks
 * it, sends it `run` messages naming a scenario's client task, and answers its questions (is the gateway idle? what
 * is its RSS?) over IPC. Client tasks live next to their scenario in `scenarios/*.ts` as `clientTasks`.
 */
import { pathToFileURL } from 'node:url';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Ask, ClientTask, ParentMessage, ChildMessage } from './protocol.js';

const SCENARIOS = fileURLToPath(new URL('./scenarios/', import.meta.url));
let nextAsk = 0;
const answers = new Map<number, (value: unknown) => void>();

function send(message: ChildMessage): void {
  process.send!(message);
}

/** Asks the orchestrator something about the gateway (see `protocol.ts`). */
const ask: Ask = (what, payload) =>
  new Promise((resolve) => {
    const id = ++nextAsk;
    answers.set(id, resolve as (value: unknown) => void);
    send({ kind: 'ask', id, what, payload });
  });

async function run(message: Extract<ParentMessage, { kind: 'run' }>): Promise<void> {
  try {
    const mod = (await import(pathToFileURL(join(SCENARIOS, `${message.scenario}.ts`)).href)) as {
      clientTasks?: Record<string, ClientTask>;
    };
    const task = mod.clientTasks?.[message.task];
    if (!task) throw new Error(`scenario ${message.scenario} has no client task ${message.task}`);
    const value = await task(message.params, ask);
    send({ kind: 'result', id: message.id, value });
  } catch (error) {
    send({
      kind: 'error',
      id: message.id,
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
}

process.on('message', (message: ParentMessage) => {
  if (message.kind === 'run') void run(message);
  else if (message.kind === 'answer') {
    answers.get(message.id)?.(message.value);
    answers.delete(message.id);
  } else if (message.kind === 'exit') process.exit(0);
});
send({ kind: 'ready' });
