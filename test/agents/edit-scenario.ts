/**
 * The edit scenario every real CLI in test/agents passes: its fake model asks to replace `beta` with `delta` in the
 * project's `notes.txt`, with the edit call the CLI's hook was seen to file (test/contracts/agent-shapes.ts keeps those
 * as CAPTURED_EDIT_SHAPES, so the summarizer contract holds them without running the CLIs). The request carries the
 * call unchanged and the diff the gateway summarizes from it; once approved, the CLI edits the file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../src/requests/serialize.js';
import { CAPTURED_EDIT_SHAPES, type CapturedShape } from '../contracts/agent-shapes.js';
import { eventually } from '../helpers/eventually.js';
import type { AgentHarness, CliRun, FakeModel, RealCli } from './harness.js';

/** What an agent's edit scenario adds to its {@link RealCli}. */
export interface EditCall<M extends FakeModel> {
  /** How the test names the call: `Edit call`, `apply_patch (through the shell tool)`. */
  call: string;
  /**
   * The key of the captured arguments that holds the file's path (`file_path`, `path`, `filePath`): the test's path
   * goes there, in what the model asks and in what the hook files. None when the arguments name the file relatively
   * (Codex's patch).
   */
  pathKey?: string;
  /** Starts the fake model asking for `edit` (the captured call, the test's path in it) after what the CLI needs first. */
  startModel(edit: CapturedShape, file: string): Promise<M>;
  /** The run, when it differs from the shell scenarios' (Claude Code is allowed Read and Edit). */
  run?(model: M): Promise<CliRun>;
  /** A call the hook gates before the edit (the read or view the model asks for first): matched, then approved. */
  gatedFirst?(file: string): Partial<ApiRequest>;
}

/** Registers `cli`'s edit scenario (see the module comment); `timeout` as for `realCliSuite`. */
export function editScenario<M extends FakeModel>(
  h: AgentHarness,
  cli: RealCli<M>,
  edit: EditCall<M>,
  timeout: number,
): void {
  describe(`${cli.title} editing a file behind tollgate hook ${cli.agent}`, { timeout }, () => {
    let model: M | undefined;
    afterEach(async () => {
      await model?.close();
      model = undefined;
    });

    it(`files its ${edit.call} with the diff as the summary, and edits the file once approved`, async () => {
      const file = join(h.project(), 'notes.txt');
      writeFileSync(file, 'alpha\nbeta\ngamma\n');
      const captured = CAPTURED_EDIT_SHAPES.find((c) => c.agent === cli.title);
      if (!captured) throw new Error(`CAPTURED_EDIT_SHAPES holds no edit call of ${cli.title}`);
      const asked = { ...captured, args: edit.pathKey ? { ...captured.args, [edit.pathKey]: file } : captured.args };
      const m = (model = await edit.startModel(asked, file));
      await cli.configure(m, 30);
      const run = (edit.run ?? cli.run)(m);
      let request = await h.pending(cli.agent);
      if (edit.gatedFirst) {
        const first = request;
        expect(first).toMatchObject(edit.gatedFirst(file));
        await h.decide(first.id, { decision: 'approve' });
        request = await eventually(
          async () => {
            const next = await h.pending(cli.agent);
            if (next.id === first.id) throw new Error(`the ${first.tool_name} is still pending`);
            return next;
          },
          60_000,
          100,
        );
      }
      // The call as the hook filed it: the shape the summarizer contract holds.
      expect(request.tool_name).toBe(asked.toolName);
      expect(request.tool_args).toEqual(asked.args);
      expect(request.summary).toMatchObject({
        kind: 'edit',
        risk: 'low',
        files: [{ path: 'notes.txt', status: 'modified', added: 1, removed: 1, outside_cwd: false }],
      });
      expect(request.summary!.files![0]!.diff).toContain('-beta\n+delta');
      await h.decide(request.id, { decision: 'approve' });
      const result = await run;
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(m.unknown).toEqual([]);
      expect(readFileSync(file, 'utf8'), m.toolResults.join('\n')).toBe('alpha\ndelta\ngamma\n');
    });
  });
}
