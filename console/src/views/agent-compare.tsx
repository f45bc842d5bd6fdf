/**
 * Two versions of an agent side by side: which two is chosen here and kept in the address, and
 * their definitions are shown as a line diff (definition-diff.ts), unchanged stretches folded
 * unless asked for.
 */
import { useMemo, useState } from "preact/hooks";
import { isNotFound } from "../api";
import { useConsole } from "../context";
import { type DiffRow, definitionText, diffCounts, foldUnchanged, lineDiff } from "../definition-diff";
import { unconditional, usePoll } from "../hooks";
import { routeHref } from "../route";
import type { Agent, AgentVersion } from "../types";
import { ErrorNote, Loading } from "./common";
import { VersionSelect } from "./version-select";

export function AgentCompare(props: { agent: Agent; from: number; to: number }) {
  const { agent, from, to } = props;
  const [whole, setWhole] = useState(false);
  const before = useVersion(agent.id, from);
  const after = useVersion(agent.id, to);
  const go = (pair: { from: number; to: number }) => {
    window.location.hash = routeHref({ view: "agent", id: agent.id, ...pair });
  };

  let body;
  const failed = [before, after].find((read) => read.error && !read.data);
  if (failed) {
    body = isNotFound(failed.failure) ? (
      <ErrorNote message={`Version ${failed === before ? from : to} of ${agent.name} does not exist.`} />
    ) : (
      <ErrorNote message={failed.error!} retry={failed.refresh} />
    );
  } else if (!before.data || !after.data) {
    body = <Loading what="the versions" />;
  } else {
    body = <VersionDiff before={before.data} after={after.data} whole={whole} />;
  }

  return (
    <section class="panel agent-compare" aria-labelledby="compare-title">
      <h2 id="compare-title">Compare versions</h2>
      <div class="compare-form">
        <div class="field">
          <VersionSelect
            id="compare-from"
            label="From version"
            agent={agent}
            value={from}
            onChange={(version) => go({ from: version, to })}
          />
        </div>
        <div class="field">
          <VersionSelect id="compare-to" label="To version" agent={agent} value={to} onChange={(version) => go({ from, to: version })} />
        </div>
        <label class="check">
          <input type="checkbox" checked={whole} onChange={(event) => setWhole((event.target as HTMLInputElement).checked)} />
          Show unchanged lines
        </label>
      </div>
      {body}
    </section>
  );
}

/** One version, read once: versions never change. */
function useVersion(agentId: string, version: number) {
  const { api } = useConsole();
  return usePoll<AgentVersion>(
    `agent-version|${agentId}|${version}`,
    () =>
      unconditional(
        api.call((client) =>
          client.GET("/v1/agents/{agent_id}/versions/{version}", { params: { path: { agent_id: agentId, version: String(version) } } }),
        ),
      ),
    null,
  );
}

function VersionDiff(props: { before: AgentVersion; after: AgentVersion; whole: boolean }) {
  const { before, after } = props;
  const lines = useMemo(() => lineDiff(definitionText(before.definition), definitionText(after.definition)), [before, after]);
  const counts = diffCounts(lines);
  const pair = `version ${before.version} to version ${after.version}`;
  const summary =
    before.version === after.version
      ? `Version ${after.version}, whole; choose another version to compare it with.`
      : counts.added + counts.removed === 0
        ? `Versions ${before.version} and ${after.version} have the same definition.`
        : `From ${pair}: ${plural(counts.removed, "line")} removed, ${plural(counts.added, "line")} added.`;
  const changed = counts.added + counts.removed > 0;
  // Without a change there is nothing to fold around: the whole definition is shown.
  const rows: DiffRow[] = props.whole || !changed ? lines : foldUnchanged(lines);
  return (
    <>
      <p class="diff-summary" role="status">
        {summary}
      </p>
      <table class="diff">
        <caption class="visually-hidden">The definition, {changed ? `changes from ${pair}` : `version ${after.version}`}</caption>
        <thead class="visually-hidden">
          <tr>
            <th scope="col">Line in version {before.version}</th>
            <th scope="col">Line in version {after.version}</th>
            <th scope="col">Change</th>
            <th scope="col">Text</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <DiffRowView key={rowKey(row)} row={row} />
          ))}
        </tbody>
      </table>
    </>
  );
}

function DiffRowView(props: { row: DiffRow }) {
  const { row } = props;
  if (row.kind === "fold") {
    return (
      <tr class="diff-fold">
        <td colSpan={4}>{plural(row.count, "unchanged line")}</td>
      </tr>
    );
  }
  const sign = row.kind === "added" ? "+" : row.kind === "removed" ? "−" : "";
  return (
    <tr class={`diff-${row.kind}`}>
      <td class="line-no">{row.kind === "added" ? "" : row.oldLine}</td>
      <td class="line-no">{row.kind === "removed" ? "" : row.newLine}</td>
      <td class="sign">
        <span aria-hidden="true">{sign}</span>
        {row.kind !== "same" && <span class="visually-hidden">{row.kind}</span>}
      </td>
      <td class="code">{row.text}</td>
    </tr>
  );
}

function rowKey(row: DiffRow): string {
  switch (row.kind) {
    case "added":
      return `a${row.newLine}`;
    case "removed":
      return `r${row.oldLine}`;
    case "same":
      return `s${row.oldLine}`;
    case "fold":
      return `f${row.oldLine}`;
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
