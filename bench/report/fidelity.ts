/**
 * The fidelity table: each recording beside the replay of its client's mimic preset.
 */
import type { BenchReport } from './model.js';

/** The fidelity table as text, or '' when no mimic preset ran. */
export function fidelityLines(report: BenchReport, color: boolean): string {
  void report; void color;
  return '';
}
