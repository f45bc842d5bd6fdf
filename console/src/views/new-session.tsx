/**
 * A session started from the console: a first message (none: the session waits idle), and
 * optionally a model, a system prompt, built-in tools and metadata. The console then opens it.
 * The platform judges every field; its answer's field errors are shown as they come.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import { parseMetadataLines } from "../metadata";
import { routeHref } from "../route";
import type { CreateSessionBody } from "../types";
import { ErrorNote, Field, Page } from "./common";

/** The tools the platform itself runs; other kinds need a URL or a client and are set up by a backend. */
const BUILTIN_TOOLS = ["get_time", "http_fetch", "run_code"] as const;

export function NewSessionPage() {
  const { api, me } = useConsole();
  const action = useAction();
  const [input, setInput] = useState("");
  const [model, setModel] = useState("");
  const [system, setSystem] = useState("");
  const [tools, setTools] = useState<string[]>([]);
  const [metadataText, setMetadataText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);

  if (!me.powers.write) {
    return (
      <Page title="New session">
        <ErrorNote message="Starting sessions needs the scope sessions:write." />
      </Page>
    );
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(null);
    const metadata = parseMetadataLines(metadataText);
    if (!metadata.ok) return setProblem(`Metadata: “${metadata.line}” is not key=value.`);
    const body: CreateSessionBody = {
      ...(input.trim() ? { input } : {}),
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(system.trim() ? { system } : {}),
      ...(tools.length > 0 ? { tools: tools.map((name) => ({ type: "builtin" as const, name })) } : {}),
      ...(metadata.metadata ? { metadata: metadata.metadata } : {}),
    };
    await action.run(async () => {
      const session = await api.call((client) => client.POST("/v1/sessions", { body }));
      me.refreshTenant();
      window.location.hash = routeHref({ view: "session", id: session.id });
    });
  };
  const toggle = (name: string, on: boolean) => setTools((list) => (on ? [...list, name] : list.filter((t) => t !== name)));
  const error = problem ?? action.error;

  return (
    <Page title="New session" subtitle="Runs at once with its first message; without one it waits, idle, for a message.">
      <form class="panel new-session" onSubmit={submit}>
        <Field id="new-input" label="First message">
          <textarea
            id="new-input"
            rows={4}
            value={input}
            onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              // Ctrl+Enter (or ⌘+Enter) sends from the message box, as chat boxes do.
              if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) (e.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
            }}
          />
        </Field>
        <Field id="new-model" label="Model (optional)">
          <input
            id="new-model"
            value={model}
            placeholder="the platform's default"
            onInput={(e) => setModel((e.target as HTMLInputElement).value)}
          />
        </Field>
        <Field id="new-system" label="System prompt (optional)">
          <textarea id="new-system" rows={3} value={system} onInput={(e) => setSystem((e.target as HTMLTextAreaElement).value)} />
        </Field>
        <fieldset class="field">
          <legend>Built-in tools</legend>
          {BUILTIN_TOOLS.map((name) => (
            <label key={name} class="check">
              <input
                type="checkbox"
                checked={tools.includes(name)}
                onChange={(e) => toggle(name, (e.target as HTMLInputElement).checked)}
              />{" "}
              {name}
            </label>
          ))}
        </fieldset>
        <Field id="new-metadata" label="Metadata (optional), one key=value per line">
          <textarea
            id="new-metadata"
            rows={2}
            value={metadataText}
            placeholder="ticket=T-1234"
            onInput={(e) => setMetadataText((e.target as HTMLTextAreaElement).value)}
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
          <a href={routeHref({ view: "sessions", status: null, createdBy: null, cursor: null })}>Cancel</a>
        </div>
      </form>
    </Page>
  );
}
