/**
 * Denial tracking: after 3 classifier denials in a row, or 20 in the session, auto
 * mode stops deciding alone and asks instead, so an agent that keeps pushing at a boundary ends up
 * in front of a person (or, headless, at a recorded denial) instead of looping. An allow resets the
 * run of consecutive denials, never the total.
 */

/** Consecutive denials before falling back to ask (Claude Code: maxConsecutive = 3). */
export const MAX_CONSECUTIVE_DENIALS = 3;
/** Denials per session before falling back to ask (Claude Code: maxTotal = 20). */
export const MAX_TOTAL_DENIALS = 20;

export class DenialTracker {
  consecutive = 0;
  total = 0;

  constructor(readonly maxConsecutive = MAX_CONSECUTIVE_DENIALS, readonly maxTotal = MAX_TOTAL_DENIALS) {}

  denied(): void {
    this.consecutive++;
    this.total++;
  }

  allowed(): void {
    this.consecutive = 0;
  }

  /** Why the classifier should not decide alone any more, or undefined. */
  fallbackReason(): string | undefined {
    if (this.consecutive >= this.maxConsecutive) return `the classifier denied ${this.consecutive} calls in a row`;
    if (this.total >= this.maxTotal) return `the classifier denied ${this.total} calls in this session`;
    return undefined;
  }
}
