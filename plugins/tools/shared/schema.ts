/**
 * Zod pieces shared by the tool schemas. `z.number().int()` puts JavaScript's safe-integer bounds
 * (`maximum: 9007199254740991`) into every generated JSON Schema, tokens the model reads on every
 * request; a whole-number check as a refinement validates the same without them.
 */
import { z } from 'zod';

/** A whole number ≥ `min`; its JSON Schema is `{ type: 'number', minimum: min }`. */
export function wholeNumber(min = 0) {
  return z.number().min(min).refine(Number.isInteger, { message: 'must be a whole number' });
}
