// Sums vitest and Playwright JSON reports into one plain closing line: "ci: N passed, N failed".
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`missing report: ${file}`);
    failed++;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  if (report.stats && 'expected' in report.stats) {
    // Playwright: expected = passed; unexpected and flaky count as failures.
    passed += report.stats.expected;
    failed += report.stats.unexpected + report.stats.flaky;
  } else {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
  }
}
console.log(`ci: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
