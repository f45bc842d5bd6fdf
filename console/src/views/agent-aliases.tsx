/**
 * An agent's aliases: each with the version it names, and, for callers who may change the agent,
 * a form that points an alias at a version (a new alias or a moved one) and a delete that asks
 * first, since sessions and schedules that name a deleted alias are refused.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import type { Agent } from "../types";
import { ConfirmedButton, Field } from "./common";
import { VersionSelect } from "./version-select";

export function AgentAliases(props: { agent: Agent; canChange: boolean; suggested: number; onChanged(): void }) {
  const { agent } = props;
  const names = Object.keys(agent.aliases).sort();
  return (
    <section class="panel agent-aliases" aria-labelledby="aliases-title">
      <h2 id="aliases-title">Aliases</h2>
      {names.length === 0 ? (
        <p class="muted">No aliases. Sessions name a version by its number, or the latest with the agent's id alone.</p>
      ) : (
        <table class="aliases-table">
          <caption class="visually-hidden">Aliases of {agent.name}</caption>
          <thead>
            <tr>
              <th scope="col">Alias</th>
              <th scope="col" class="num">
                Version
              </th>
              {props.canChange && (
                <th scope="col">
                  <span class="visually-hidden">Delete</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {names.map((name) => (
              <tr key={name} data-alias={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td class="num">{agent.aliases[name]}</td>
                {props.canChange && (
                  <td>
                    <DeleteAlias agent={agent} alias={name} onDone={props.onChanged} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {props.canChange && <SetAlias agent={agent} suggested={props.suggested} onDone={props.onChanged} />}
    </section>
  );
}

function SetAlias(props: { agent: Agent; suggested: number; onDone(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [alias, setAlias] = useState("");
  const [version, setVersion] = useState<number | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [unnamed, setUnnamed] = useState(false);
  const chosen = version ?? Math.min(props.suggested, props.agent.version);
  const error = unnamed ? "Name the alias, for example production." : action.error;
  const submit = async (event: Event) => {
    event.preventDefault();
    setResult(null);
    const name = alias.trim();
    // Said here: without a name the request would address no alias at all. Every other check is the platform's.
    setUnnamed(name === "");
    if (name === "") return;
    const done = await action.run(() =>
      api.call((client) =>
        client.PUT("/v1/agents/{agent_id}/aliases/{alias}", {
          params: { path: { agent_id: props.agent.id, alias: name } },
          body: { version: chosen },
        }),
      ),
    );
    if (done) {
      setResult(`${name} now names version ${chosen}.`);
      setAlias("");
      props.onDone();
    }
  };
  return (
    <form class="alias-form" onSubmit={submit} aria-labelledby="set-alias-title">
      <h3 id="set-alias-title">Set an alias</h3>
      <Field id="alias-name" label="Alias">
        <input
          id="alias-name"
          value={alias}
          autoComplete="off"
          spellcheck={false}
          aria-describedby="alias-help"
          aria-invalid={error ? "true" : undefined}
          onInput={(event) => setAlias((event.target as HTMLInputElement).value)}
        />
        <p id="alias-help" class="hint">
          Lowercase letters, digits, _ and -, not all digits. An existing alias moves to the version.
        </p>
      </Field>
      <div class="field">
        <VersionSelect id="alias-version" label="Version to name" agent={props.agent} value={chosen} onChange={setVersion} />
      </div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Setting…" : "Set alias"}
        </button>
        {result && (
          <span class="result" role="status">
            {result}
          </span>
        )}
      </div>
    </form>
  );
}

function DeleteAlias(props: { agent: Agent; alias: string; onDone(): void }) {
  const { api } = useConsole();
  const reference = `${props.agent.id}@${props.alias}`;
  return (
    <ConfirmedButton
      label="Delete…"
      ariaLabel={`Delete alias ${props.alias}…`}
      title={`Delete alias ${props.alias}?`}
      confirmLabel="Delete the alias"
      run={() =>
        api.call((client) =>
          client.DELETE("/v1/agents/{agent_id}/aliases/{alias}", { params: { path: { agent_id: props.agent.id, alias: props.alias } } }),
        )
      }
      onDone={props.onDone}
    >
      <p>
        New sessions that name <code>{reference}</code> are refused (404), and schedules that name it fail at their next firing, until the
        alias is set again. Sessions already created keep their version.
      </p>
    </ConfirmedButton>
  );
}
