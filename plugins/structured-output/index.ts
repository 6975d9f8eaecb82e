/**
 * `structured-output`: the answer as JSON that matches a JSON Schema (`--json-schema`, the Agent
 * SDK's `outputFormat: { type: 'json_schema', schema }`). Every main-loop request asks for it with
 * the Messages API's structured outputs (`output_config.format: { type: 'json_schema', schema }`,
 * https://docs.claude.com/en/docs/build-with-claude/structured-outputs); at the end of the run
 * the last answer is parsed and checked against the schema (ajv) and put in the result
 * (`structured_output`). An answer that is not JSON, or does not match, leaves it out and says
 * why in a warning notice.
 */
import { Ajv } from 'ajv';
import { z } from 'zod';
import { definePlugin, REQUEST_STAGE } from '../../kernel/index.js';

export const structuredOutputOptions = z.strictObject({
  /** The JSON Schema the answer must match. */
  schema: z.record(z.string(), z.unknown()).register(z.globalRegistry, { description: 'The JSON Schema the final answer must match (`--json-schema`); sent as the Messages API\'s `output_config.format` and checked at the end of the run.' }),
});

export default definePlugin({
  name: 'structured-output',
  description: 'Asks for the answer as JSON matching a JSON Schema and puts it in the result (structured_output).',
  options: structuredOutputOptions,
  apply(kernel, { schema }) {
    let validate: ReturnType<Ajv['compile']>;
    try {
      validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    } catch (err) {
      throw new Error(`the JSON Schema is not valid: ${(err as Error).message}`);
    }
    kernel.hooks.request.tap({ name: 'structured-output', stage: REQUEST_STAGE.PARAMS }, (params) => ({
      ...params,
      output_config: { ...(params.output_config ?? {}), format: { type: 'json_schema', schema } },
    } as typeof params));
    kernel.hooks.runEnd.tap('structured-output', ({ result }) => {
      if (result.isError) return;
      let value: unknown;
      try {
        value = JSON.parse(result.text);
      } catch {
        kernel.emit({ type: 'notice', level: 'warn', source: 'structured-output', message: 'the answer is not JSON, so the result has no structured_output' });
        return;
      }
      if (!validate(value)) {
        const why = (validate.errors ?? []).map((e) => `${e.instancePath || '(answer)'} ${e.message}`).join('; ');
        kernel.emit({ type: 'notice', level: 'warn', source: 'structured-output', message: `the answer does not match the JSON Schema (${why}), so the result has no structured_output` });
        return;
      }
      result.structuredOutput = value;
    });
  },
});
