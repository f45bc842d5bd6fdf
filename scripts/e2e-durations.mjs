// Writes `test/e2e/durations.json` from the log of a whole `npm test` run (`npm test 2>&1 | tee
// test.log`, then `node scripts/e2e-durations.mjs test.log`): the seconds each end-to-end file
// took, which `scripts/test.mjs` uses to split those files into halves of equal time.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const log = process.argv[2];
if (!log) {
  console.error("usage: node scripts/e2e-durations.mjs <log of npm test>");
  process.exit(2);
}
// Vitest's default reporter closes each file with `✓  e2e  test/e2e/<name>.test.ts (<n> tests) <ms>ms`
// (`❯` when one failed: a failed file's time still weighs), coloured on a terminal.
const line = /[✓❯×]\s+(?:\S+\s+)?test\/e2e\/([\w.-]+\.test\.ts) \(\d+ tests?[^)]*\) (\d+(?:\.\d+)?)(ms|s)\b/;
// The escape sequences of a terminal's colours.
const colours = /\x1b\[[0-9;]*m/g;
const seconds = {};
for (const text of readFileSync(log, "utf8").split("\n")) {
  const match = line.exec(text.replace(colours, ""));
  if (match) seconds[match[1]] = Math.round(match[3] === "ms" ? Number(match[2]) / 1000 : Number(match[2]));
}
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(root, "test/e2e/durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${Object.keys(sorted).length} files measured`);
