// The end-to-end files split into lists of about equal measured time, for `scripts/test.mjs`.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Seconds a file weighs when `durations.json` has not measured it yet. */
export const UNMEASURED_SECONDS = 60;

/** `names` in `count` lists of about equal weight: longest first, each to the lightest list (ties to the earlier list). */
export function balance(names, seconds, count) {
  const weighed = names
    .map((name) => ({ name, seconds: seconds[name] ?? UNMEASURED_SECONDS }))
    .sort((a, b) => b.seconds - a.seconds || a.name.localeCompare(b.name));
  const shards = Array.from({ length: count }, () => ({ seconds: 0, names: [] }));
  for (const file of weighed) {
    const lightest = shards.reduce((min, shard) => (shard.seconds < min.seconds ? shard : min));
    lightest.seconds += file.seconds;
    lightest.names.push(file.name);
  }
  return shards;
}

/** The files of `dir` (relative to `root`) in `count` lists of paths, weighed by the directory's `durations.json`. */
export function e2eShards(root, dir, count) {
  const seconds = JSON.parse(readFileSync(join(root, dir, "durations.json"), "utf8"));
  const names = readdirSync(join(root, dir)).filter((name) => name.endsWith(".test.ts"));
  return balance(names, seconds, count).map((shard) => shard.names.map((name) => `${dir}/${name}`));
}
