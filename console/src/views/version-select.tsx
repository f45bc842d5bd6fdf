/** A labelled choice of one of an agent's versions, newest first, each named with the aliases that point at it. */
import type { Agent } from "../types";

export function VersionSelect(props: { id: string; label: string; agent: Agent; value: number; onChange(version: number): void }) {
  const { agent } = props;
  const names = namesByVersion(agent.aliases);
  // Versions are numbered from 1 without gaps and never removed, so the latest number says them all.
  const versions = Array.from({ length: agent.version }, (_, index) => agent.version - index);
  return (
    <>
      <label for={props.id}>{props.label}</label>
      <select
        id={props.id}
        value={String(props.value)}
        onChange={(event) => props.onChange(Number((event.target as HTMLSelectElement).value))}
      >
        {versions.map((version) => (
          <option key={version} value={String(version)}>
            {optionLabel(version, version === agent.version, names.get(version) ?? [])}
          </option>
        ))}
      </select>
    </>
  );
}

function optionLabel(version: number, latest: boolean, aliases: string[]): string {
  const notes = [...(latest ? ["latest"] : []), ...aliases];
  return notes.length > 0 ? `${version} (${notes.join(", ")})` : String(version);
}

/** Each version's aliases, in name order. */
export function namesByVersion(aliases: Record<string, number>): Map<number, string[]> {
  const named = new Map<number, string[]>();
  for (const name of Object.keys(aliases).sort()) {
    const version = aliases[name]!;
    named.set(version, [...(named.get(version) ?? []), name]);
  }
  return named;
}
