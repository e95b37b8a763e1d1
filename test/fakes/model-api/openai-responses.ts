/**
 * A fake OpenAI Responses API on 127.0.0.1 (what Codex CLI talks to through a `model_providers` entry with
 * `wire_api = "responses"`): every streamed `POST /v1/responses` asks for one shell call (`exec_command` with the
 * scripted command) until the input ends with its `function_call_output`, which is recorded (what the model was
 * told: the output, or why the command was blocked) and answered with a short message.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';

/** A running fake. */
export interface FakeResponsesModel {
  /** `http://127.0.0.1:PORT/v1` (the provider's `base_url`). */
  url: string;
  command: string;
  /** Every tool result the model received, in order. */
  toolResults: string[];
  /** Paths asked that the fake does not serve. */
  unknown: string[];
  close(): Promise<void>;
}

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

/** An output item the fake asks for instead of the shell call (`{type: 'function_call', name, arguments}`). */
export type FakeResponsesItem = Record<string, unknown>;

/** Starts the fake; `command` is what the model asks to run, unless `asked` is the item to ask for instead. */
export async function startFakeResponsesModel(command: string, asked?: FakeResponsesItem): Promise<FakeResponsesModel> {
  const fake: FakeResponsesModel = { url: '', command, toolResults: [], unknown: [], close: async () => undefined };
  let calls = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await read(req);
      if (req.method !== 'POST' || !/\/responses$/.test(req.url ?? '')) {
        fake.unknown.push(`${req.method} ${req.url}`);
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not in the fake"}}');
        return;
      }
      const input = (JSON.parse(raw) as { input?: { type?: string; output?: unknown }[] }).input ?? [];
      const last = input.at(-1);
      const id = `resp_${++calls}`;
      const send = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      send('response.created', { response: { id } });
      if (last?.type === 'function_call_output') {
        fake.toolResults.push(typeof last.output === 'string' ? last.output : JSON.stringify(last.output));
        send('response.output_item.done', {
          item: {
            type: 'message',
            role: 'assistant',
            id: `msg_${calls}`,
            content: [{ type: 'output_text', text: 'Done.' }],
          },
        });
      } else {
        send('response.output_item.done', {
          item: asked
            ? { id: `fc_${calls}`, call_id: `call_${calls}`, status: 'completed', ...asked }
            : {
                type: 'function_call',
                id: `fc_${calls}`,
                call_id: `call_${calls}`,
                name: 'exec_command',
                arguments: JSON.stringify({ cmd: fake.command }),
                status: 'completed',
              },
        });
      }
      send('response.completed', { response: { id, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } } });
      res.end();
    })().catch((error: unknown) => res.destroy(error as Error));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
