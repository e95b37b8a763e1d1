/**
 * @module bench/scenarios/soak-capacity
 * The soak's two capacity measurements, which size its load (issue 47): the bare create capacity (the `create_rps`
 * closed loop) and the capacity of the soak's own mix, each on a gateway of its own. The mix runs the soak's `run`
 * client task (bench/scenarios/soak.ts), reached through the load client by name.
 */
import { freshGateway, type BenchContext } from '../context.js';
import { BENCH_TOKEN } from '../processes.js';
import { round } from '../stats.js';
import { CREATE_BODY, createLoop } from './create-rps.js';

/**
 * The bench client is one address standing in for thousands of agents: at the soak's rates it parks more long-polls
 * than the per-address limit's default (4,096) allows, and the gateway would reset the rest (seen: 13,938 polls reset
 * in a 2-minute trial). Both gateways here take as many as the client opens.
 */
export const ONE_CLIENT_ENV = { TOLLGATE_MAX_CONNECTIONS_PER_ADDRESS: '65536' };

/** The bare create capacity: the `create_rps` closed loop on a gateway of its own. */
export async function createCapacity(ctx: BenchContext): Promise<number> {
  const gateway = await freshGateway(ctx, 'soak-capacity', ONE_CLIENT_ENV);
  try {
    const load = await ctx.client.run<{ rps: number }>(
      'http-load',
      'postLoop',
      createLoop(ctx, gateway.url, CREATE_BODY, { warmupMs: 2000, durationMs: 6000 }),
      { mark: () => null },
    );
    return load.rps;
  } finally {
    await gateway.stop();
  }
}

/** Seconds the mix's capacity is measured over (after 10 s of warm-up). */
const PROBE_S = 30;

/**
 * The mix's capacity in creates/s: the soak's own load offered at the bare create capacity, which it cannot keep up
 * with (each create brings a long-poll, seven in ten a decision and three in ten an expiry), so the cap of 256
 * creates in flight makes it a closed loop; the creates that began in the measured 30 s, per second. Half the bare
 * capacity overloads the mix (a 2-minute trial: create p50 76 ms, 169k creates missed).
 */
export async function mixCapacity(ctx: BenchContext, bareRps: number): Promise<number> {
  const gateway = await freshGateway(ctx, 'soak-mix-capacity', ONE_CLIENT_ENV);
  try {
    const result = await ctx.client.run<{ per_minute: { creates: number }[] }>(
      'soak',
      'run',
      {
        url: gateway.url,
        token: BENCH_TOKEN,
        rate: Math.max(1, Math.round(bareRps)),
        minutes: PROBE_S / 60,
        warmupMs: 10_000,
      },
      { mark: () => null },
    );
    return round((result.per_minute[0]?.creates ?? 0) / PROBE_S, 0);
  } finally {
    await gateway.stop(5000);
  }
}
