/**
 * The fault suite's load: agents that file requests, wait on them by long-poll (re-attaching on the other replica when
 * theirs stops answering, as GateClient does), and deciders that approve or deny most of them, all through the
 * replicas' client links. Everything the gateway acknowledged is written in a {@link Ledger} for the checker.
 */

/** A replica as the clients reach it. */
export interface Entry {
  name: string;
  url: string;
}

/** What the gateway acknowledged, and how the calls went. */
export interface Ledger {
  /** Requests answered 201: id → deadline (ms). */
  created: Map<string, number>;
  /** Decisions answered 200 with a final status. */
  verdicts: Map<string, 'approved' | 'denied'>;
  /** Long-polls: id → the final status they returned (null: none before the agent gave up), and re-attachments. */
  waits: Map<string, { final: string | null; reattached: number }>;
  calls: number;
  /** Calls that got no answer (reset, refused, or no answer in time: a partition). */
  unanswered: number;
  /** 503s that carried Retry-After. */
  retryable: number;
  /** Any other 5xx: there must be none. */
  bad5xx: string[];
}

/** Options of {@link runLoad}. */
export interface LoadOptions {
  replicas: () => Entry[];
  token: string;
  agents: number;
  stop: () => boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** Runs the load until `stop()` says so and every agent's last request has its verdict (or was given up). */
export async function runLoad(options: LoadOptions): Promise<Ledger> {
  const ledger: Ledger = {
    created: new Map(),
    verdicts: new Map(),
    waits: new Map(),
    calls: 0,
    unanswered: 0,
    retryable: 0,
    bad5xx: [],
  };

  async function call(
    replica: Entry,
    method: string,
    path: string,
    body: unknown,
    timeoutMs: number,
  ): Promise<{ status: number; json: Record<string, unknown> } | null> {
    ledger.calls++;
    try {
      const res = await fetch(`${replica.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (res.status === 503 && res.headers.get('retry-after')) ledger.retryable++;
      else if (res.status >= 500)
        ledger.bad5xx.push(`${method} ${path} on ${replica.name}: ${res.status} ${text.slice(0, 200)}`);
      return { status: res.status, json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {} };
    } catch {
      ledger.unanswered++;
      return null;
    }
  }

  /** Long-polls until the request is final; a replica that does not answer is left for another one. */
  async function wait(id: string, first: Entry, deadline: number): Promise<void> {
    const entry = { final: null as string | null, reattached: 0 };
    ledger.waits.set(id, entry);
    let replica = first;
    while (Date.now() < deadline + 90_000) {
      const res = await call(replica, 'GET', `/v1/requests/${id}?wait=5`, undefined, 9000);
      if (res?.status === 200 && res.json.status !== 'pending') {
        entry.final = String(res.json.status);
        return;
      }
      if (!res || res.status >= 500) {
        entry.reattached++;
        replica = pick(options.replicas().filter((r) => r !== replica)) ?? replica;
        await sleep(200);
      }
    }
  }

  async function agent(n: number): Promise<void> {
    let seq = 0;
    while (!options.stop()) {
      const replica = pick(options.replicas());
      const timeoutS = 4 + Math.floor(Math.random() * 4);
      const res = await call(
        replica,
        'POST',
        '/v1/requests',
        { tool_name: 'fault_probe', tool_args: { agent: n, seq: seq++ }, approvers: ['web:ops'], timeout_s: timeoutS },
        5000,
      );
      if (res?.status !== 201) {
        await sleep(300);
        continue;
      }
      const id = String(res.json.id);
      ledger.created.set(id, Date.parse(String(res.json.expires_at)));
      const waiting = wait(id, replica, Date.parse(String(res.json.expires_at)));
      // Three in ten are left to expire; the rest are decided by someone, somewhere, within two seconds.
      if (Math.random() < 0.7) {
        await sleep(Math.random() * 2000);
        const decision = Math.random() < 0.8 ? 'approve' : 'deny';
        const decided = await call(
          pick(options.replicas()),
          'POST',
          `/v1/requests/${id}/decision`,
          { decision, approver: 'web:ops' },
          5000,
        );
        if (decided?.status === 200 && (decided.json.status === 'approved' || decided.json.status === 'denied'))
          ledger.verdicts.set(id, decided.json.status);
      }
      await waiting;
    }
  }

  await Promise.all(Array.from({ length: options.agents }, (_, n) => agent(n)));
  return ledger;
}
