/**
 * @module bench/scenarios/channel-taps
 * What the Teams, Discord and Telegram scenarios share (not a scenario itself): the load client's `tap` task, which
 * files requests for one channel and posts, for each, the tap the orchestrator prepared from the card the channel's
 * fake received (signed as that platform signs it, ready to send as is), timing it from the post to the parked
 * long-poll's answer with {@link measureResume}; and the orchestrator's index of the cards a fake received.
 */
import { BenchHttp } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { sleep } from '../stats.js';
import { measureResume, type ApiRequest, type ResumeParams } from './decision-resume.js';

/** A tap as the platform would post it to the gateway: built and signed by the orchestrator, posted by the load client. */
export interface PreparedTap {
  path: string;
  body: string;
  headers: Record<string, string>;
}

/** Parameters of the `tap` task: where to file requests (`channel`, `target`) besides {@link ResumeParams}. */
export interface TapParams extends ResumeParams {
  channel: string;
  target: string;
}

/** The load client's `tap` task: a request per tap, its card asked for (`card`), the prepared tap posted in the timed part. */
export const preparedTap: ClientTask = async (raw, ask) => {
  const p = raw as unknown as TapParams;
  const platform = new BenchHttp(p.url, null, 1);
  try {
    return await measureResume(
      p,
      ask,
      async (http, i) => {
        const request = await http.json<ApiRequest>(
          'POST',
          '/v1/requests',
          {
            tool_name: 'bench.deploy',
            tool_args: { service: 'api', build: i },
            timeout_s: 600,
            channels: [{ type: p.channel, target: p.target }],
          },
          201,
        );
        const tap = (await ask('card', request.id)) as PreparedTap;
        return Object.assign(request, { tap });
      },
      (request) => {
        const { tap } = request as ApiRequest & { tap: PreparedTap };
        return platform.send('POST', tap.path, tap.body, tap.headers);
      },
    );
  } finally {
    platform.close();
  }
};

/**
 * Finds the card a fake received for a request, waiting for its delivery: `all()` lists the fake's messages in the
 * order received, `requestOf` names the request a message is the card of (null for none).
 */
export function cardIndex<M>(
  channel: string,
  all: () => readonly M[],
  requestOf: (message: M) => string | null,
): (requestId: string) => Promise<M> {
  const byRequest = new Map<string, M>();
  let seen = 0;
  return async (requestId) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const messages = all();
      for (; seen < messages.length; seen++) {
        const id = requestOf(messages[seen]!);
        if (id !== null && !byRequest.has(id)) byRequest.set(id, messages[seen]!);
      }
      const message = byRequest.get(requestId);
      if (message) return message;
      if (Date.now() > deadline) throw new Error(`no ${channel} card for ${requestId} within 30 s`);
      await sleep(5);
    }
  };
}
