/**
 * A tenant's limit overrides, edited as a whole (`PUT …/limits` replaces them): an empty field
 * means the platform default, shown beside it; "unlimited" is offered for tokens per day.
 */
import { useEffect, useState } from "preact/hooks";
import { useConsole } from "../context";
import { formatNumber, LIMIT_LABELS } from "../format";
import { useAction } from "../hooks";
import type { AdminTenant, LimitOverrides, Limits } from "../types";

type Name = keyof Limits;
const NAMES = Object.keys(LIMIT_LABELS) as Name[];
/** Entered as this word, `max_tokens_per_day` is unlimited (null). */
const UNLIMITED = "unlimited";

/** Pure: the form's text per limit, from the overrides. */
export function overridesToFields(overrides: LimitOverrides): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of NAMES) {
    const value = overrides[name];
    fields[name] = value === undefined ? "" : value === null ? UNLIMITED : String(value);
  }
  return fields;
}

/** Pure: the overrides the fields say, or the first field that is not a whole number. */
export function fieldsToOverrides(fields: Record<string, string>): { ok: true; overrides: LimitOverrides } | { ok: false; field: string; message: string } {
  const overrides: Record<string, number | null> = {};
  for (const name of NAMES) {
    const text = (fields[name] ?? "").trim().replace(/[,_\s]/g, "");
    if (text === "") continue;
    if (name === "max_tokens_per_day" && text.toLowerCase() === UNLIMITED) {
      overrides[name] = null;
      continue;
    }
    if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
      return { ok: false, field: name, message: `${LIMIT_LABELS[name]}: a whole number of at least 1${name === "max_tokens_per_day" ? `, or "${UNLIMITED}"` : ""}, or empty for the default.` };
    }
    overrides[name] = Number(text);
  }
  return { ok: true, overrides: overrides as LimitOverrides };
}

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
      api.call((client) => client.PUT("/v1/admin/tenants/{tenant_id}/limits", { params: { path: { tenant_id: props.tenant.tenant_id } }, body: parsed.overrides })),
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
      {NAMES.map((name) => (
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
