// Loaded with `node --import` by the whole-process benchmarks (harness.ts): when the process
// exits, it writes its peak resident set size and CPU time as JSON to the file REIN_BENCH_USAGE
// names. process.resourceUsage() counts every thread of the process (worker threads included).
import { writeFileSync } from 'node:fs';

const file = process.env.REIN_BENCH_USAGE;
if (file) {
  process.on('exit', () => {
    const u = process.resourceUsage();
    writeFileSync(file, JSON.stringify({ maxRssKb: u.maxRSS, userMs: u.userCPUTime / 1000, systemMs: u.systemCPUTime / 1000 }));
  });
}
