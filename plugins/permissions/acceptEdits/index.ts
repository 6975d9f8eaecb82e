/**
 * `permissions/acceptEdits`: like default, and file edits inside the working directories run too
 * (protected paths such as `.git/` excepted). Shell commands still need rules.
 */
import { defineModePlugin } from '../shared/mode-plugin.js';

export default defineModePlugin('acceptEdits', 'Permission mode acceptEdits: reads and file edits in the project run, everything else not allowed by a rule asks.');
