/**
 * A fake Anthropic Messages API on 127.0.0.1 (what Claude Code talks to through `ANTHROPIC_BASE_URL`): every streamed
 * `POST /v1/messages` asks for one shell call (`Bash` with the scripted command; or the calls it was given, in turn)
 * until the last user message carries its `tool_result`, which is recorded (what the model was told: the output, or
 * why the call was blocked) and answered with a short text. Other calls Claude Code makes on the side (a title, a topic check: no tools offered) get text.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';

/** A running fake. */
export interface FakeMessagesModel {
  /** `http://127.0.0.1:PORT` (what `ANTHROPIC_BASE_URL` takes). */
  url: string;
  command: string;
  /** Every tool result the model received, in order. */
  toolResults: string[];
  /** Paths asked that the fake does not serve. */
  unknown: string[];
  close(): Promise<void>;
}

interface Block {
  type: string;
  content?: unknown;
}

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};
const text = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p: { text?: string }) => p.text ?? '').join('')
      : JSON.stringify(content);

/** A tool call the fake asks for instead of the shell call (a `Read`, then an `Edit`). */
export interface FakeMessagesCall {
  name: string;
  input: Record<string, unknown>;
}

/** Starts the fake; `command` is what the model asks to run, unless `asked` gives the calls to ask for, in turn. */
export async function startFakeMessagesModel(command: string, asked?: FakeMessagesCall[]): Promise<FakeMessagesModel> {
  const fake: FakeMessagesModel = { url: '', command, toolResults: [], unknown: [], close: async () => undefined };
  let calls = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await read(req);
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== '/v1/messages') {
        fake.unknown.push(`${req.method} ${req.url}`);
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"type":"error","error":{"type":"not_found_error","message":"not in the fake"}}');
        return;
      }
      const body = JSON.parse(raw) as {
        model?: string;
        tools?: unknown[];
        messages?: { role: string; content: string | Block[] }[];
      };
      const last = body.messages?.at(-1);
      const result = Array.isArray(last?.content) ? last.content.find((b) => b.type === 'tool_result') : undefined;
      const id = `msg_${++calls}`;
      const send = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      send('message_start', {
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: body.model ?? 'fake',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      });
      // The calls asked in turn, one per tool result so far: the shell call, or the calls given.
      const turns = asked ?? [{ name: 'Bash', input: { command: fake.command, description: 'the scripted command' } }];
      const results = (body.messages ?? []).filter(
        (m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'),
      ).length;
      const next = turns[results];
      const asksForTool = next !== undefined && (body.tools?.length ?? 0) > 0;
      if (result) fake.toolResults.push(text(result.content));
      if (asksForTool) {
        send('content_block_start', {
          index: 0,
          content_block: { type: 'tool_use', id: `toolu_${calls}_${Date.now()}`, name: next.name, input: {} },
        });
        send('content_block_delta', {
          index: 0,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(next.input) },
        });
      } else {
        send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Done.' } });
      }
      send('content_block_stop', { index: 0 });
      send('message_delta', {
        delta: { stop_reason: asksForTool ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      });
      send('message_stop', {});
      res.end();
    })().catch((error: unknown) => res.destroy(error as Error));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
