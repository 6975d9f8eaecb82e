/**
 * Every preset shipped under presets/ validates, and loads into a kernel that answers a prompt
 * through the real SDK against the simulator.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KernelPreset } from '../../../kernel/kernel.js';
import { createKernel } from '../../kernel.js';
import { createAnthropicClient } from '../../../lib/model/anthropic.js';
import { collect, serveScenario, tempDir, type SimHarness } from '../../../testing/support.js';
import { TOOL_PLUGINS } from '../../plugins.js';
import { builtinPresetNames, builtinPresetsDir, loadPreset, validatePresetFile } from '../index.js';

const names = builtinPresetNames();
let tmp: ReturnType<typeof tempDir>;
let sim: SimHarness | undefined;

beforeEach(() => {
  tmp = tempDir('rein-presets-');
  process.env.REIN_HOME = tmp.dir;
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  delete process.env.REIN_HOME;
  tmp.cleanup();
});

describe('shipped presets', () => {
  it('include minimal', () => {
    expect(names).toContain('minimal');
  });

  for (const name of names) {
    it(`${name} validates`, async () => {
      expect(await validatePresetFile(join(builtinPresetsDir(), `${name}.yaml`), { env: { HOME: tmp.dir } })).toEqual([]);
    });

    it(`${name} loads into a kernel and runs a turn`, async () => {
      const r = await loadPreset({ preset: name, cwd: tmp.dir, homeDir: tmp.dir, layers: false, env: { HOME: tmp.dir }, flags: { session: { dir: join(tmp.dir, 'sessions') } } });
      sim = await serveScenario('turns:\n  - reply: [{ text: "ready" }]\n', tmp.dir);
      const client = createAnthropicClient({ baseURL: sim.server.url, apiKey: 'test', kind: 'simulator' });
      const kernel = await createKernel({ preset: r.preset as KernelPreset, presetDir: r.baseDir, cwd: tmp.dir, client, plugins: r.plugins });
      try {
        expect(kernel.pluginNames()).toEqual(r.plugins.map((p) => p.plugin.name));
        for (const tool of r.preset.tools ?? []) {
          if (TOOL_PLUGINS[tool]) expect(kernel.tools.has(tool), `${name}: tool ${tool}`).toBe(true);
        }
        const { result } = await collect(kernel, 'Are you ready?');
        expect(result.terminalReason).toBe('end_turn');
        const body = sim.requests()[0]!.body;
        expect(body.model).toBe(r.preset.model?.name);
      } finally {
        await kernel.close();
      }
    });
  }
});
