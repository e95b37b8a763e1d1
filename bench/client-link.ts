/**
 * @module bench/client-link
 * The orchestrator's side of the load client: forks `load-client.ts` (its own process, its own event loop), runs
 * client tasks in it and answers its questions about the server under load.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { AskWhat, ChildMessage, ParentMessage } from './protocol.js';

const ENTRY = fileURLToPath(new URL('./load-client.ts', import.meta.url));

/** Answers to a client task's questions. */
export type AskHandlers = Partial<Record<AskWhat, (payload: unknown) => Promise<unknown> | unknown>>;

/** A running load-client process. */
export class LoadClient {
  private nextId = 0;
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; handlers: AskHandlers }
  >();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: ChildMessage) => this.onMessage(message));
    child.once('exit', (code) => {
      for (const p of this.pending.values()) p.reject(new Error(`load client exited with ${code}`));
      this.pending.clear();
    });
  }

  /** Forks the load client and waits until it is ready. */
  static async start(): Promise<LoadClient> {
    const child = fork(ENTRY, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const client = new LoadClient(child);
    await new Promise<void>((resolve, reject) => {
      const onMessage = (m: ChildMessage) => {
        if (m.kind === 'ready') {
          child.off('message', onMessage);
          resolve();
        }
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new Error(`load client exited with ${code} before ready`)));
    });
    return client;
  }

  /** The load client's process id (its CPU is read from /proc beside the server's). */
  get pid(): number {
    return this.child.pid!;
  }

  /** Runs `scenario`'s client task `task` in the load-client process and resolves with what it returns. */
  run<T>(scenario: string, task: string, params: Record<string, unknown>, handlers: AskHandlers = {}): Promise<T> {
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, handlers });
      this.post({ kind: 'run', id, scenario, task, params });
    });
  }

  /** Ends the process. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.post({ kind: 'exit' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  private post(message: ParentMessage) {
    this.child.send(message);
  }

  private onMessage(message: ChildMessage) {
    if (message.kind === 'result' || message.kind === 'error') {
      const p = this.pending.get(message.id);
      this.pending.delete(message.id);
      if (message.kind === 'result') p?.resolve(message.value);
      else p?.reject(new Error(`load client: ${message.message}`));
    } else if (message.kind === 'ask') {
      // Asks come from the one task in flight; answer with that task's handlers.
      const handlers = [...this.pending.values()].at(-1)?.handlers ?? {};
      const handler = handlers[message.what];
      void Promise.resolve(handler ? handler(message.payload) : null).then((value) =>
        this.post({ kind: 'answer', id: message.id, value }),
      );
    }
  }
}
