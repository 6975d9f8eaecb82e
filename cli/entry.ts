import { main } from './main.js';

// Runs the CLI from source (tests use it through jiti); the published bin is bin/rein.js.
await main(process.argv.slice(2));
