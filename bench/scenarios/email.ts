/**
 * @module bench/scenarios/email
 * The email figures, through the real email channel (nodemailer) in the gateway sending to the team's SMTP server
 * (`test/fakes/email`: `smtp-server` + `mailparser`), which runs in the orchestrator's process:
 * `email.delivery_ms`, from the create's 201 at the load client to the mail parsed at the SMTP server, one request at
 * a time (500: each takes the 100 ms smtp-server holds its greeting, so fewer than the taps' 1,000); and
 * `email.link_to_resume_ms`, from posting the confirmation form of the mail's Approve link (its page opened first, as
 * a browser does, outside the timing) to the waiting long-poll's response.
 *
 * The two processes compare times on the one clock they share: `process.hrtime` (CLOCK_MONOTONIC) — the load client
 * converts the 201's `performance.now()`, the orchestrator stamps each mail as the server hands it over parsed.
 */
import { FakeSmtp, type ReceivedMail } from '../../test/fakes/email/fake-smtp.js';
import { withGatewayBeside, type BenchContext, type freshGateway, type Scenario } from '../context.js';
import { BenchHttp } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { waitIdle } from '../proc.js';
import { sleep, summarize, type Percentiles } from '../stats.js';
import { measureResume, type ApiRequest, type ResumeParams } from './decision-resume.js';

const TARGET = 'ops@bench.test';
/** Where the mails say the gateway is; links are sent to the gateway's real address instead, as a reverse proxy would. */
const PUBLIC_URL = 'http://gate.bench.test';

/** Milliseconds on the clock every process on the machine shares (CLOCK_MONOTONIC, which `performance.now()` counts from its own origin). */
const sharedNow = () => Number(process.hrtime.bigint()) / 1e6;
/** `performance.now()` → {@link sharedNow}. */
const sharedOffset = () => sharedNow() - performance.now();

const createBody = (i: number) => ({
  tool_name: 'bench.deploy',
  tool_args: { service: 'api', build: i },
  timeout_s: 600,
  channels: [{ type: 'email', target: TARGET }],
});

/** Files requests one at a time; each 201 is timed against its mail's arrival (`mail` answers with it). */
const deliver: ClientTask = async (raw, ask) => {
  const p = raw as unknown as { url: string; token: string; count: number };
  const http = new BenchHttp(p.url, p.token, 1);
  const delivery: number[] = [];
  try {
    for (let i = 0; i < p.count; i++) {
      const request = await http.json<ApiRequest>('POST', '/v1/requests', createBody(i), 201);
      const created = request.doneAt + sharedOffset();
      const arrived = (await ask('mail', request.id)) as number;
      delivery.push(arrived - created);
    }
    return { delivery: summarize(delivery) };
  } finally {
    http.close();
  }
};

/** What a browser holds after opening a link's page: the form's address, cookie and CSRF token. */
interface OpenedForm {
  path: string;
  cookie: string;
  csrf: string;
}

/** Opens the mail's Approve link (GET, as a browser does) and reads its form. */
async function openLink(url: string, link: string): Promise<OpenedForm> {
  const path = link.slice(PUBLIC_URL.length);
  const res = await fetch(`${url}${path}`, { redirect: 'manual' });
  const page = await res.text();
  const csrf = /name="_csrf" value="([^"]*)"/.exec(page)?.[1];
  if (res.status !== 200 || csrf === undefined)
    throw new Error(`the link's page answered ${res.status} without a form: ${page.slice(0, 300)}`);
  return {
    path,
    cookie: res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
    csrf,
  };
}

/** Approvals through the mail's link: the confirmation form's post is the timed part. */
const link: ClientTask = async (raw, ask) => {
  const p = raw as unknown as ResumeParams;
  const browser = new BenchHttp(p.url, null, 1);
  try {
    return await measureResume(
      p,
      ask,
      async (http, i) => {
        const request = await http.json<ApiRequest>('POST', '/v1/requests', createBody(i), 201);
        const form = await openLink(p.url, (await ask('card', request.id)) as string);
        return Object.assign(request, { form });
      },
      (request) => {
        const { form } = request as ApiRequest & { form: OpenedForm };
        return browser.send('POST', form.path, new URLSearchParams({ _csrf: form.csrf }).toString(), {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: form.cookie,
        });
      },
    );
  } finally {
    browser.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { deliver, link };

/** Waits for the mail about a request; resolves with it and when it arrived (on {@link sharedNow}). */
function mailIndex(fake: FakeSmtp): (requestId: string) => Promise<{ mail: ReceivedMail; at: number }> {
  const byRequest = new Map<string, { mail: ReceivedMail; at: number }>();
  // The server stamps `at` in whole milliseconds of wall time; this stamps the same moment (the parsed mail handed
  // over) on the shared clock, to the microsecond.
  const push = fake.mails.push.bind(fake.mails);
  fake.mails.push = (...mails: ReceivedMail[]) => {
    const at = sharedNow();
    for (const mail of mails) {
      const id = mail.headers.get('x-tollgate-request');
      if (typeof id === 'string' && !byRequest.has(id)) byRequest.set(id, { mail, at });
    }
    return push(...mails);
  };
  return async (requestId) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = byRequest.get(requestId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail about ${requestId} within 30 s`);
      await sleep(1);
    }
  };
}

async function withEmailGateway<T>(
  ctx: BenchContext,
  name: string,
  fn: (gateway: Awaited<ReturnType<typeof freshGateway>>, fake: FakeSmtp) => Promise<T>,
): Promise<T> {
  const fake = await FakeSmtp.start();
  return withGatewayBeside(
    ctx,
    name,
    fake,
    { SMTP_URL: fake.url, TOLLGATE_EMAIL_FROM: 'Tollgate <tollgate@bench.test>', TOLLGATE_PUBLIC_URL: PUBLIC_URL },
    async (gateway) => {
      return await fn(gateway, fake);
    },
  );
}

/** `email.delivery_ms` and `email.link_to_resume_ms`. */
export const emailScenario: Scenario = {
  name: 'email',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const delivery = await withEmailGateway(ctx, 'email-delivery', async (gateway, fake) => {
      const mailAbout = mailIndex(fake);
      return ctx.client.run<{ delivery: Percentiles }>(
        'email',
        'deliver',
        { url: gateway.url, token: BENCH_TOKEN, count: ctx.quick ? 100 : 500 },
        { mail: async (id) => (await mailAbout(String(id))).at },
      );
    });
    const resume = await withEmailGateway(ctx, 'email-link', async (gateway, fake) => {
      const mailAbout = mailIndex(fake);
      return ctx.client.run<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }>(
        'email',
        'link',
        { url: gateway.url, token: BENCH_TOKEN, count: ctx.quick ? 200 : 1000, batch: 100 },
        { idle: () => waitIdle(gateway.pid), card: async (id) => (await mailAbout(String(id))).mail.links[0] },
      );
    });
    if (resume.not_parked) ctx.log(`email: ${resume.not_parked} long-polls answered before their form was posted`);
    return {
      email: {
        delivery_ms: {
          p50: delivery.delivery.p50,
          p99: delivery.delivery.p99,
          max: delivery.delivery.max,
          n: delivery.delivery.n,
        },
        link_to_resume_ms: {
          p50: resume.resume.p50,
          p99: resume.resume.p99,
          max: resume.resume.max,
          n: resume.resume.n,
          ack_rtt_p50: resume.decision_rtt.p50,
          ack_rtt_p99: resume.decision_rtt.p99,
        },
      },
    };
  },
};
