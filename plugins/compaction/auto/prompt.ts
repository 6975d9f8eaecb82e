/**
 * The words of a compaction: the summariser's instructions, the message that carries the summary
 * into the new history, and the clean-up of the model's answer. rein's own wording; the nine
 * sections are Claude Code's checklist, plus the failed approaches a summary tends
 * to lose.
 */

/** System prompt of the summary request. */
export const SUMMARIZER_SYSTEM = 'You write handoff summaries of software engineering agent sessions. Another instance of the agent will continue the work from your summary alone, so it must be complete, exact and specific. You have no tools and you answer with text only.';

/** The instructions after the transcript. */
export const SUMMARY_INSTRUCTIONS = `Write a handoff summary of the session above. You cannot call tools in this reply: any tool call is rejected and the summary is lost. Reply with text only.

First think in an <analysis> block: go through the session in order and note each request of the user, what was done about it, the decisions and their reasons, file names, code that was written or changed, commands that were run and their results, errors and how they were fixed, approaches that failed, and corrections the user made. Check that nothing important is missing.

Then write the summary in a <summary> block, with these numbered sections:
1. Requests and intent: every explicit request of the user, in detail; quote the most recent one.
2. Technical context: languages, frameworks, tools and conventions that matter for the work.
3. Files and code: each file read, changed or created, why it matters, and the important code (complete snippets for changes).
4. Errors and fixes: each error met and how it was fixed, especially where the user corrected the approach.
5. Problem solving: what was solved, what is still being investigated, and approaches that were tried and failed, with why.
6. User messages: every message the user wrote (not tool results), as close to verbatim as possible.
7. Pending tasks: tasks the user explicitly asked for that are not done yet. Nothing else.
8. Current work: exactly what was being done just before this summary, with file names and code.
9. Next step: the next step, only if it follows directly from the user's most recent request; quote that request. Leave this section empty when the work was finished.

Only the <summary> block is kept; the <analysis> block is discarded.`;

/** Text that opens the summary message in the new history. */
export const CONTINUATION_PREAMBLE = 'This session continues an earlier conversation that grew too long for the context window. The earlier part has been replaced by the summary below. Carry on with the work from where it stopped, without asking the user to repeat anything and without recapping.';

/** Text before the files re-read after compaction. */
export const RESTORED_FILES_PREAMBLE = 'These files were read before the summary; here is their current content, so they need not be read again:';

/** The prompt with the caller's extra instructions appended (manual `compact(instructions)`, the preset's). */
export function summaryPrompt(extra: readonly string[]): string {
  const more = extra.map((s) => s.trim()).filter(Boolean);
  if (!more.length) return SUMMARY_INSTRUCTIONS;
  return `${SUMMARY_INSTRUCTIONS}\n\nAdditional instructions for this summary:\n${more.join('\n')}`;
}

/**
 * The kept part of a summary reply: the first `<analysis>` block removed, then the inside of the
 * `<summary>` block if there is one, else the whole remaining text, trimmed. '' means no summary.
 */
export function formatSummary(reply: string): string {
  const withoutAnalysis = reply.replace(/<analysis>[\s\S]*?<\/analysis>/, '');
  const m = /<summary>([\s\S]*?)(?:<\/summary>|$)/.exec(withoutAnalysis);
  return (m ? m[1]! : withoutAnalysis).trim();
}

/** The summary message's text. */
export function summaryMessageText(summary: string): string {
  return `${CONTINUATION_PREAMBLE}\n\n<summary>\n${summary}\n</summary>`;
}
