/** The built-in responders. */
export { createScriptResponder } from './script.js';
export { createReplayResponder, type RecordedMessage, type ReplayOptions } from './replay.js';
export { createEchoResponder } from './echo.js';
export type * from './types.js';
