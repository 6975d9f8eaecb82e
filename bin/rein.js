#!/usr/bin/env node
// The `rein` command. `--version` answers before anything else is loaded, so it stays fast.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  let main;
  try {
    main = await import('../dist/bundle/main.js');
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/bundle/main.js')) {
      process.stderr.write('rein: the compiled files are missing; run `npm install` (or `npm run build`) in the rein folder first\n');
      process.exit(70);
    }
    throw err;
  }
  await main.main(argv);
}
