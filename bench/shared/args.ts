import { parseArgs, type ParseArgsConfig } from 'node:util';

/**
 * The options of a bench script's command line, parsed by Node's own parser (`util.parseArgs`):
 * an unknown option, or one without its value, prints what is wrong and exits with code 2 instead
 * of a stack trace.
 */
export function benchArgs<O extends NonNullable<ParseArgsConfig['options']>>(options: O): ReturnType<typeof parseArgs<{ options: O }>>['values'] {
  try {
    return parseArgs({ options }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(2);
  }
}
