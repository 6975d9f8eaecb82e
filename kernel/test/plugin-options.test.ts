/**
 * Plugin options the preset loader already parsed with the plugin's schema
 * (`safeParsePluginOptions`) are loaded as they are, not parsed a second time: the second parse cost
 * start-up time, and a schema's output is not always valid input for it.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { definePlugin, parsePluginOptions, PluginError, safeParsePluginOptions } from '../plugin.js';

describe('plugin options parsed once', () => {
  // The output (a number) is not valid input (a string): parsing it again fails.
  const plugin = definePlugin({ name: 'port', options: z.object({ port: z.string().transform(Number) }), apply() {} });

  it('parsePluginOptions returns the output of safeParsePluginOptions for the same plugin as it is', () => {
    const first = safeParsePluginOptions(plugin, { port: '8080' });
    expect(first.success).toBe(true);
    const data = first.success ? first.data : undefined;
    expect(parsePluginOptions(plugin, data)).toBe(data);
    expect(data).toEqual({ port: 8080 });
  });

  it('still parses an equal object that did not come from that parse, and another plugin\'s output', () => {
    expect(() => parsePluginOptions(plugin, { port: 8080 })).toThrow(PluginError);
    const other = definePlugin({ name: 'other', options: z.object({ port: z.number() }), apply() {} });
    const parsed = safeParsePluginOptions(other, { port: 8080 });
    expect(() => parsePluginOptions(plugin, parsed.success ? parsed.data : undefined)).toThrow(/plugin port: invalid options: port/);
  });

  it('parses raw options as before', () => {
    expect(parsePluginOptions(plugin, { port: '1' })).toEqual({ port: 1 });
    expect(() => parsePluginOptions(plugin, { port: 1 })).toThrow(PluginError);
  });
});
