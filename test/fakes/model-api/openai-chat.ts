/**
 * A fake OpenAI-compatible Chat Completions API on 127.0.0.1 (what Qwen Code talks to through `OPENAI_BASE_URL`):
 * every `POST …/chat/completions` asks for one shell call (`run_shell_command` with the scripted command, or the calls
 * it was given, in turn) until the conversation carries its `tool` message, which is recorded (what the model was told: the
 * output, or why the call was blocked) and answered with a short text, or (`finish`) with a call of the agent's own tool for ending its task
 * (Cline's ends only through one), then the text. Streams (SSE) or not, as the client asks.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';

/** A running fake. */
export interface FakeChatModel {
  /** `http://127.0.0.1:PORT/v1` (what `OPENAI_BASE_URL` takes). */
  url: string;
  command: string;
  /** Every tool result the model received, in order. */
  toolResults: string[];
  /** Paths asked that the fake does not serve. */
  unknown: string[];
  close(): Promise<void>;
}

interface Message {
  role: string;
  content?: unknown;
  tool_calls?: { function?: { name?: string } }[];
}

/** A tool call the model asks for (one it ends its task with, or one given instead of the shell call). */
export interface FinishCall {
  name: string;
  args: Record<string, unknown>;
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

/**
 * Starts the fake; `command` is what the model asks to run, with the agent's shell tool (`tool`, default Qwen's), or
 * `tool` is the call (or calls, in turn: a read, then an edit) to ask for instead; `finish`, the call the model ends
 * its task with once the last call's result is in.
 */
export async function startFakeChatModel(
  command: string,
  tool: string | FinishCall | FinishCall[] = 'run_shell_command',
  finish?: FinishCall,
): Promise<FakeChatModel> {
  const fake: FakeChatModel = { url: '', command, toolResults: [], unknown: [], close: async () => undefined };
  let calls = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await read(req);
      if (req.method !== 'POST' || !/\/chat\/completions$/.test(req.url ?? '')) {
        fake.unknown.push(`${req.method} ${req.url}`);
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not in the fake"}}');
        return;
      }
      const body = JSON.parse(raw) as { messages?: Message[]; stream?: boolean; model?: string };
      const last = body.messages?.at(-1);
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      const base = {
        id: `chatcmpl-${++calls}`,
        created: Math.floor(Date.now() / 1000),
        model: body.model ?? 'fake-model',
      };
      // The calls asked in turn, one per answered call: the shell call, or the calls given (a read, then an edit).
      const asked: FinishCall[] =
        typeof tool === 'string'
          ? [{ name: tool, args: { command: fake.command, description: 'the scripted command' } }]
          : Array.isArray(tool)
            ? tool
            : [tool];
      const callMessage = (call: FinishCall) => ({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            index: 0,
            id: `call_${calls}`,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          },
        ],
      });
      const results = body.messages?.filter((m) => m.role === 'tool').length ?? 0;
      let message: Record<string, unknown>;
      let reason: string;
      // Which tool the result answers: the last call the model asked for.
      const answered = body.messages?.findLast((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls?.[0]
        ?.function?.name;
      if (last?.role === 'tool' && results < asked.length) {
        fake.toolResults.push(text(last.content));
        message = callMessage(asked[results]!);
        reason = 'tool_calls';
      } else if (last?.role === 'tool' && finish && answered !== finish.name) {
        fake.toolResults.push(text(last.content));
        message = callMessage(finish);
        reason = 'tool_calls';
      } else if (last?.role === 'tool') {
        if (!finish) fake.toolResults.push(text(last.content));
        message = { role: 'assistant', content: 'Done.' };
        reason = 'stop';
      } else {
        message = callMessage(asked[0]!);
        reason = 'tool_calls';
      }
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, message, finish_reason: reason }],
            usage,
          }),
        );
        return;
      }
      const chunk = (choice: unknown, extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [choice], ...extra })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk({ index: 0, delta: message, finish_reason: null }));
      res.write(chunk({ index: 0, delta: {}, finish_reason: reason }, { usage }));
      res.end('data: [DONE]\n\n');
    })().catch((error: unknown) => res.destroy(error as Error));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
