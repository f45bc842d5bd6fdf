/**
 * A tenant's limit overrides, edited as a whole (`PUT …/limits` replaces them): an empty field
 * means the platform default, shown beside it; "unlimited" is offered for tokens per day.
 */
import { useEffect, useState } from "preact/hooks";
import { useConsole } from "../context";
import { formatNumber, LIMIT_LABELS } from "../format";
import { useAction } from "../hooks";
import { fieldsToOverrides, LIMIT_NAMES, overridesToFields, UNLIMITED } from "../limits";
import type { AdminTenant } from "../types";

export function LimitsForm(props: { tenant: AdminTenant; onSaved(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [fields, setFields] = useState(() => overridesToFields(props.tenant.limit_overrides));
  const [dirty, setDirty] = useState(false);
  const [invalid, setInvalid] = useState<{ field: string; message: string } | null>(null);
  const [saved, setSaved] = useState(false);
  const stored = JSON.stringify(props.tenant.limit_overrides);

  // A poll brings the stored overrides; they replace the fields unless someone is typing.
  useEffect(() => {
    if (!dirty) setFields(overridesToFields(props.tenant.limit_overrides));
  }, [stored]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const parsed = fieldsToOverrides(fields);
    if (!parsed.ok) {
      setInvalid(parsed);
      document.getElementById(`limit-${parsed.field}`)?.focus();
      return;
    }
    setInvalid(null);
    const done = await action.run(() =>
      api.call((client) =>
        client.PUT("/v1/admin/tenants/{tenant_id}/limits", {
          params: { path: { tenant_id: props.tenant.tenant_id } },
          body: parsed.overrides,
        }),
      ),
    );
    if (done) {
      setDirty(false);
      setSaved(true);
      props.onSaved();
    }
  };

  const effective = props.tenant.effective_limits;
  return (
    <form class="limits" onSubmit={submit} aria-labelledby="limits-title" noValidate>
      <h2 id="limits-title">Limits</h2>
      <p class="muted">Empty fields use the platform default. Lowered limits reach running sessions at their next run.</p>
      {LIMIT_NAMES.map((name) => (
        <div class="field" key={name}>
          <label for={`limit-${name}`}>{LIMIT_LABELS[name]}</label>
          <input
            id={`limit-${name}`}
            name={name}
            inputMode={name === "max_tokens_per_day" ? "text" : "numeric"}
            value={fields[name] ?? ""}
            placeholder="default"
            aria-invalid={invalid?.field === name ? true : undefined}
            aria-describedby={`effective-${name}`}
            onInput={(event) => {
              setDirty(true);
              setSaved(false);
              setFields({ ...fields, [name]: (event.target as HTMLInputElement).value });
            }}
          />
          <span id={`effective-${name}`} class="muted">
            now {effective[name] === null ? UNLIMITED : formatNumber(effective[name])}
          </span>
        </div>
      ))}
      {invalid && (
        <p class="form-error" role="alert">
          {invalid.message}
        </p>
      )}
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Saving…" : "Save limits"}
        </button>
        {saved && (
          <span class="result" role="status">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}
