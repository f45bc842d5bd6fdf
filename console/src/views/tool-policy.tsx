/**
 * The tenant's tool policy (tenant admins, on the settings page): the Cedar text, validated by the
 * platform on save (its validator's messages shown as they come), removed after a question, and
 * a form that judges one call by the stored policy or the text being edited (docs/policy.md).
 */
import { useState } from "preact/hooks";
import { isNotFound } from "../api";
import { useConsole } from "../context";
import { useAction, usePoll } from "../hooks";
import type { PolicyDecision, TenantPolicy } from "../types";
import { ConfirmedButton, ErrorNote, Field, Loading } from "./common";

export function ToolPolicyPanel() {
  const { api } = useConsole();
  const policy = usePoll<TenantPolicy | null>(
    "tenant-policy",
    async () => {
      try {
        return { changed: true, data: await api.call((client) => client.GET("/v1/tenant/policy")), etag: null };
      } catch (error) {
        if (isNotFound(error)) return { changed: true, data: null, etag: null };
        throw error;
      }
    },
    null,
  );
  // Kept here: the form is made afresh from the policy read again after a save, and "Saved." outlives that.
  const [saved, setSaved] = useState(false);
  if (policy.error) return <ErrorNote message={policy.error} retry={policy.refresh} />;
  if (policy.loading && policy.data === null) return <Loading what="the tool policy" />;
  return <PolicyForm key={policy.data?.version ?? 0} policy={policy.data} saved={saved} setSaved={setSaved} onChanged={policy.refresh} />;
}

function PolicyForm(props: { policy: TenantPolicy | null; saved: boolean; setSaved(saved: boolean): void; onChanged(): void }) {
  const { api } = useConsole();
  const save = useAction();
  const [text, setText] = useState(props.policy?.cedar ?? "");
  const { saved, setSaved } = props;
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (await save.run(() => api.call((client) => client.PUT("/v1/tenant/policy", { body: { cedar: text } })))) {
      setSaved(true);
      props.onChanged();
    }
  };
  return (
    <section class="panel" aria-labelledby="policy-title">
      <h2 id="policy-title">Tool policy</h2>
      <form onSubmit={submit}>
        <Field id="tool-policy" label={props.policy ? `Cedar policy (version ${props.policy.version})` : "Cedar policy (none set)"}>
          <textarea
            id="tool-policy"
            rows={8}
            spellcheck={false}
            value={text}
            placeholder={'@id("no-fetch") forbid (principal, action, resource == Tool::"http_fetch");'}
            onInput={(e) => {
              setSaved(false);
              setText((e.target as HTMLTextAreaElement).value);
            }}
          />
        </Field>
        {save.error && (
          <p class="form-error" role="alert">
            {save.error}
          </p>
        )}
        {saved && (
          <p class="result" role="status">
            Saved.
          </p>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={save.pending || text.trim() === ""}>
            {save.pending ? "Saving…" : "Validate and save"}
          </button>
          {props.policy && (
            <ConfirmedButton
              label="Remove…"
              title="Remove the tool policy?"
              confirmLabel="Remove"
              run={() => api.call((client) => client.DELETE("/v1/tenant/policy"))}
              onDone={props.onChanged}
            >
              <p>Tool calls from the next one on are judged by the agents' policies alone.</p>
            </ConfirmedButton>
          )}
        </div>
      </form>
      <CheckForm draft={text} />
    </section>
  );
}

/** Judges one call as the loop would: by the text being edited when it differs from nothing, else the stored policy. */
function CheckForm(props: { draft: string }) {
  const { api } = useConsole();
  const check = useAction();
  const [principal, setPrincipal] = useState("end_user:alice");
  const [tool, setTool] = useState("http_fetch");
  const [type, setType] = useState<"builtin" | "webhook" | "client" | "mcp" | "agent">("builtin");
  const [input, setInput] = useState("{}");
  const [tainted, setTainted] = useState(false);
  const [decision, setDecision] = useState<PolicyDecision | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setDecision(null);
    await check.run(async () => {
      const body = {
        principal,
        tool: { name: tool, type },
        input: JSON.parse(input) as unknown,
        tainted,
        ...(props.draft.trim() ? { cedar: props.draft } : {}),
      };
      setDecision(await api.call((client) => client.POST("/v1/tenant/policy/check", { body })));
    });
  };
  return (
    <form class="policy-check" onSubmit={submit} aria-labelledby="policy-check-title">
      <h3 id="policy-check-title">Check a call</h3>
      <Field id="check-principal" label="Principal (created_by)">
        <input id="check-principal" value={principal} onInput={(e) => setPrincipal((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="check-tool" label="Tool">
        <input id="check-tool" value={tool} onInput={(e) => setTool((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="check-type" label="Type">
        <select id="check-type" value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value as typeof type)}>
          {(["builtin", "webhook", "client", "mcp", "agent"] as const).map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
      </Field>
      <Field id="check-input" label="Input (JSON)">
        <textarea id="check-input" rows={2} value={input} onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)} />
      </Field>
      <label>
        <input type="checkbox" checked={tainted} onChange={(e) => setTainted((e.target as HTMLInputElement).checked)} /> The run is tainted
      </label>
      {check.error && (
        <p class="form-error" role="alert">
          {check.error}
        </p>
      )}
      {decision && (
        <p class="result" role="status" data-decision={decision.decision}>
          {decision.decision}
          {decision.policy_ids.length > 0 && ` by ${decision.policy_ids.join(", ")}`}
          {decision.errors.length > 0 && ` (errors: ${decision.errors.join("; ")})`}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={check.pending}>
          {check.pending ? "Checking…" : "Check"}
        </button>
      </div>
    </form>
  );
}
