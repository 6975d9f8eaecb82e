/**
 * Zod pieces shared by the tool schemas. `z.number().int()` puts JavaScript's safe-integer bounds
 * (`maximum: 9007199254740991`) into every generated JSON Schema, tokens the model reads on every
 * request; a whole-number check as a refinement validates the same without them.
 *
 * Each tool's input schema is wrapped in `z.lazy()`: it is built when the tool's first call is
 * validated, not when its plugin loads, since the request carries the JSON Schema generated ahead
 * of time (generated/input-schemas.ts). Building them all at load was ~15 M instructions of a
 * `default` preset's start-up.
 */
import { z } from 'zod';
import { inputSchemaOf, type JsonSchema, type Tool } from '../../../kernel/index.js';

/** A whole number ≥ `min`; its JSON Schema is `{ type: 'number', minimum: min }`. */
export function wholeNumber(min = 0) {
  return z.number().min(min).refine(Number.isInteger, { message: 'must be a whole number' });
}

/**
 * The `description` option of the built-in tool plugins: `full` (the default) or `condensed`, the
 * same contract (parameters, limits, the rules the tool enforces) in fewer words, for presets
 * whose every request should carry a small prefix (`lean`).
 */
export const descriptionStyle = z.enum(['full', 'condensed']).default('full').register(z.globalRegistry, { description: 'The tool description sent to the model: `full`, or `condensed` (the same contract in fewer words, for a small cached prefix).' });

/** `schema` without the `description` of its top-level properties (the condensed description names each one). */
function withoutPropertyDescriptions(schema: JsonSchema): JsonSchema {
  const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => {
    if (!v || typeof v !== 'object') return [k, v];
    const { description: _d, ...rest } = v as Record<string, unknown>;
    return [k, rest];
  }));
  return { ...schema, properties };
}

/**
 * `tool` with its condensed description and an input schema whose properties carry no
 * descriptions of their own: `description` must name every parameter and what it means. Input is
 * still validated with the tool's zod schema.
 */
export function condensedTool<I>(tool: Tool<I>, description: string): Tool<I> {
  return { ...tool, description, inputJsonSchema: withoutPropertyDescriptions(inputSchemaOf(tool) as JsonSchema) };
}
