/**
 * A fake Gemini API on 127.0.0.1 for the real Gemini CLI and Qwen Code... (Gemini's wire only): every
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` asks for one shell call (`run_shell_command` with the
 * scripted command, or the call it was given) until the conversation carries its `functionResponse`, which is recorded (what the model was
 * told: the command's output, or why it was blocked) and answered with a short text, ending the turn.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** A running fake. */
export interface FakeGemini {
  /** `http://127.0.0.1:PORT` (what `GOOGLE_GEMINI_BASE_URL` takes). */
  url: string;
  /** The command the next conversation asks to run. */
  command: string;
  /** Every tool result the model received, as JSON text, in order. */
  toolResults: string[];
  /** Paths asked that the fake does not serve (a CLI looking up something else). */
  unknown: string[];
  close(): Promise<void>;
}

interface Part {
  text?: string;
  functionCall?: unknown;
  functionResponse?: { name?: string; response?: unknown };
}

const read = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const event = (value: unknown) => `data: ${JSON.stringify(value)}\r\n\r\n`;

/** A function call the fake asks for instead of the shell call (an edit: `replace`, `write_file`). */
export interface FakeGeminiCall {
  name: string;
  args: Record<string, unknown>;
}

/** Starts the fake; `command` is what the model asks to run, unless `asked` names another call. */
export async function startFakeGemini(command: string, asked?: FakeGeminiCall): Promise<FakeGemini> {
  const fake: FakeGemini = { url: '', command, toolResults: [], unknown: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await read(req);
      if (req.method !== 'POST' || !/:streamGenerateContent/.test(req.url ?? '')) {
        fake.unknown.push(`${req.method} ${req.url}`);
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"error":{"code":404,"message":"not in the fake"}}');
        return;
      }
      const contents = (JSON.parse(body) as { contents?: { role?: string; parts?: Part[] }[] }).contents ?? [];
      const answered = contents.at(-1)?.parts?.find((p) => p.functionResponse);
      const usage = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (answered) {
        fake.toolResults.push(JSON.stringify(answered.functionResponse?.response ?? null));
        res.end(
          event({
            candidates: [{ content: { role: 'model', parts: [{ text: 'Done.' }] }, finishReason: 'STOP', index: 0 }],
            usageMetadata: usage,
          }),
        );
        return;
      }
      const call = {
        functionCall: asked ?? {
          name: 'run_shell_command',
          args: { command: fake.command, description: 'the scripted command' },
        },
      };
      res.end(
        event({
          candidates: [{ content: { role: 'model', parts: [call] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: usage,
        }),
      );
    })().catch((error: unknown) => res.destroy(error as Error));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  fake.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
