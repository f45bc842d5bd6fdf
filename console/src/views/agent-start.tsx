/**
 * A session started from one version of an agent (`agent: "agt_…@N"`, pinned to that number
 * whatever the aliases do later) with a first message; the console then opens the new session.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import { routeHref } from "../route";
import type { Agent } from "../types";
import { Field } from "./common";
import { VersionSelect } from "./version-select";

export function StartSession(props: { agent: Agent; suggested: number }) {
  const { api, me } = useConsole();
  const action = useAction();
  const [version, setVersion] = useState<number | null>(null);
  const [input, setInput] = useState("");
  const [empty, setEmpty] = useState(false);
  const chosen = version ?? Math.min(props.suggested, props.agent.version);
  const error = empty ? "Write the first message: the run starts with it." : action.error;

  const submit = async (event: Event) => {
    event.preventDefault();
    setEmpty(input.trim() === "");
    if (input.trim() === "") return;
    await action.run(async () => {
      const session = await api.call((client) => client.POST("/v1/sessions", { body: { agent: `${props.agent.id}@${chosen}`, input } }));
      me.refreshTenant();
      window.location.hash = routeHref({ view: "session", id: session.id });
    });
  };

  return (
    <form class="panel start-session" onSubmit={submit} aria-labelledby="start-title">
      <h2 id="start-title">Start a session</h2>
      <div class="field">
        <VersionSelect id="start-version" label="Version to run" agent={props.agent} value={chosen} onChange={setVersion} />
      </div>
      <Field id="start-input" label="First message">
        <textarea
          id="start-input"
          rows={3}
          value={input}
          aria-invalid={error ? "true" : undefined}
          onInput={(event) => setInput((event.target as HTMLTextAreaElement).value)}
        />
      </Field>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Starting…" : "Start session"}
        </button>
      </div>
    </form>
  );
}
