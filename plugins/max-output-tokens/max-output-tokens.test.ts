import { afterEach, describe, expect, it } from 'vitest';
import maxOutputTokens, { ESCALATED_MAX_TOKENS, RESUME_PROMPT } from './index.js';
import { collect, serveScenario, simKernel, transitions, type SimHarness } from '../../testing/support.js';
import { useTestEnv } from '../../testing/index.js';

const env = useTestEnv();
let sim: SimHarness | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const cut = '  - reply: [{ text: "part" }]\n    stop_reason: max_tokens\n';

describe('max-output-tokens', () => {
  it('escalates max_tokens once with the identical request, then resumes 3 times, then ends', async () => {

    sim = await serveScenario(`turns:\n${cut.repeat(5)}`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { model: { name: 'claude-sonnet-4-6', maxTokens: 8000 } }, plugins: [{ plugin: maxOutputTokens }] });
    const { events, result } = await collect(kernel, 'write a lot');
    expect(transitions(events)).toEqual([
      'continue:max_output_tokens_escalate', 'continue:max_output_tokens_resume', 'continue:max_output_tokens_resume',
      'continue:max_output_tokens_resume', 'terminal:max_output_tokens',
    ]);
    const reqs: any[] = sim.requests().map((r) => r.body);
    expect(reqs.map((b) => b.max_tokens)).toEqual([8000, ESCALATED_MAX_TOKENS, ESCALATED_MAX_TOKENS, ESCALATED_MAX_TOKENS, ESCALATED_MAX_TOKENS]);
    expect(JSON.stringify(reqs[1].messages)).toBe(JSON.stringify(reqs[0].messages));
    expect(reqs[2].messages.at(-1).content[0].text).toBe(RESUME_PROMPT);
    expect(result.terminalReason).toBe('max_output_tokens');
  });

  it('takes the escalated cap, the number of resumes and the prompt from its options', async () => {
    sim = await serveScenario(`turns:\n${cut.repeat(3)}`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { model: { name: 'claude-sonnet-4-6', maxTokens: 8000 } }, plugins: [{ plugin: maxOutputTokens, options: { escalateTo: 16000, resumes: 1, prompt: 'Go on.' } }] });
    const { events, result } = await collect(kernel, 'write a lot');
    expect(transitions(events)).toEqual(['continue:max_output_tokens_escalate', 'continue:max_output_tokens_resume', 'terminal:max_output_tokens']);
    const reqs: any[] = sim.requests().map((r) => r.body);
    expect(reqs.map((b) => b.max_tokens)).toEqual([8000, 16000, 16000]);
    expect(reqs[2].messages.at(-1).content[0].text).toBe('Go on.');
    expect(result.terminalDetail).toBe('still cut at 16000 tokens after 1 resumes');
  });

  it('does not escalate with escalateTo 0', async () => {
    sim = await serveScenario(`turns:\n${cut.repeat(2)}`, env.dir);
    const kernel = await simKernel(sim, { cwd: env.dir, preset: { model: { name: 'claude-sonnet-4-6', maxTokens: 8000 } }, plugins: [{ plugin: maxOutputTokens, options: { escalateTo: 0, resumes: 1 } }] });
    const { events } = await collect(kernel, 'write a lot');
    expect(transitions(events)).toEqual(['continue:max_output_tokens_resume', 'terminal:max_output_tokens']);
    expect(sim.requests().map((r) => (r.body as { max_tokens: number }).max_tokens)).toEqual([8000, 8000]);
  });
});
