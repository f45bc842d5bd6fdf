/**
 * Platform admins: a tenant's jurisdiction (`PUT /v1/admin/tenants/{tenant_id}`), set before the
 * tenant holds data; the platform answers 409 after, shown as it comes.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import { routeHref } from "../route";
import type { AdminTenant } from "../types";
import { Field } from "./common";

type Jurisdiction = AdminTenant["jurisdiction"];

const CHOICES: { value: string; label: string }[] = [
  { value: "", label: "None (anywhere)" },
  { value: "eu", label: "eu" },
  { value: "fedramp", label: "fedramp" },
];

export function jurisdictionLabel(jurisdiction: Jurisdiction): string {
  return jurisdiction ?? "none";
}

/** The labelled choice of a jurisdiction, the empty value meaning none. */
function JurisdictionSelect(props: { id: string; value: string; onChange(value: string): void }) {
  return (
    <Field id={props.id} label="Jurisdiction">
      <select id={props.id} value={props.value} onChange={(event) => props.onChange((event.target as HTMLSelectElement).value)}>
        {CHOICES.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </Field>
  );
}

function useSetJurisdiction() {
  const { api } = useConsole();
  const action = useAction();
  const save = (tenantId: string, jurisdiction: Jurisdiction) =>
    action.run(() =>
      api.call((client) =>
        client.PUT("/v1/admin/tenants/{tenant_id}", { params: { path: { tenant_id: tenantId } }, body: { jurisdiction } }),
      ),
    );
  return { action, save };
}

/** On a tenant's page: its jurisdiction, changeable while it holds no data. */
export function JurisdictionForm(props: { tenant: AdminTenant; onSaved(): void }) {
  const { action, save } = useSetJurisdiction();
  const [choice, setChoice] = useState<string>(props.tenant.jurisdiction ?? "");
  const [saved, setSaved] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    if (await save(props.tenant.tenant_id, (choice || null) as Jurisdiction)) {
      setSaved(true);
      props.onSaved();
    }
  };
  return (
    <form class="residency" onSubmit={submit} aria-labelledby="residency-title">
      <h2 id="residency-title">Residency</h2>
      <p class="muted">
        Every object of the tenant lives in this jurisdiction, now <strong>{jurisdictionLabel(props.tenant.jurisdiction)}</strong>. It can
        be set only before the tenant holds data.
      </p>
      <JurisdictionSelect id="tenant-jurisdiction" value={choice} onChange={setChoice} />
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Saving…" : "Save jurisdiction"}
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

/** On the tenants page: a tenant not listed yet (it holds no data) pinned to a jurisdiction before its first request. */
export function NewTenantJurisdiction() {
  const { action, save } = useSetJurisdiction();
  const [tenantId, setTenantId] = useState("");
  const [choice, setChoice] = useState("eu");
  const [saved, setSaved] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const id = tenantId.trim();
    if (await save(id, (choice || null) as Jurisdiction)) setSaved(id);
  };
  return (
    <form class="residency new-tenant" onSubmit={submit} aria-labelledby="new-residency-title">
      <h2 id="new-residency-title">Pin a new tenant</h2>
      <p class="muted">Before its first request: a tenant is listed here once it is used, and its jurisdiction is fixed from then on.</p>
      <Field id="new-tenant-id" label="Tenant id">
        <input id="new-tenant-id" required value={tenantId} onInput={(event) => setTenantId((event.target as HTMLInputElement).value)} />
      </Field>
      <JurisdictionSelect id="new-tenant-jurisdiction" value={choice} onChange={setChoice} />
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending || tenantId.trim() === ""}>
          {action.pending ? "Saving…" : "Set jurisdiction"}
        </button>
        {saved && (
          <span class="result" role="status">
            Saved: <a href={routeHref({ view: "tenant", tenantId: saved, status: null, createdBy: null, cursor: null })}>{saved}</a>.
          </span>
        )}
      </div>
    </form>
  );
}
