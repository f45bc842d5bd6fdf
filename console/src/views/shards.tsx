/**
 * Platform admins: how many shards a tenant's new sessions are spread over
 * (`PUT /v1/admin/tenants/{tenant_id}/shards`). A refusal (409: too many shards over its
 * generations) is shown as it comes.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import type { AdminTenant } from "../types";
import { Field } from "./common";

export function ShardsForm(props: { tenant: AdminTenant; onSaved(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [count, setCount] = useState(String(props.tenant.shards));
  const [saved, setSaved] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const shards = Number(count);
    let text = "";
    const ok = await action.run(async () => {
      const layout = await api.call((client) =>
        client.PUT("/v1/admin/tenants/{tenant_id}/shards", { params: { path: { tenant_id: props.tenant.tenant_id } }, body: { shards } }),
      );
      text = `Saved: generation ${layout.generation}, ${layout.shards} shard${layout.shards === 1 ? "" : "s"}.`;
    });
    if (ok) {
      setSaved(text);
      props.onSaved();
    }
  };
  return (
    <form class="shards" onSubmit={submit} aria-labelledby="shards-title">
      <h2 id="shards-title">Shards</h2>
      <p class="muted">
        New sessions are spread over <strong>{props.tenant.shards}</strong> shard{props.tenant.shards === 1 ? "" : "s"} (1: the tenant's
        index keeps them). Sessions made before stay where they are; lists and counts cover them all. Daily budgets stay one count for the
        whole tenant.
      </p>
      <Field id="tenant-shards" label="Shard count">
        <input
          id="tenant-shards"
          type="number"
          min={1}
          max={64}
          required
          value={count}
          onInput={(event) => setCount((event.target as HTMLInputElement).value)}
        />
      </Field>
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Saving…" : "Save shards"}
        </button>
        {saved && (
          <span class="result" role="status">
            {saved}
          </span>
        )}
      </div>
    </form>
  );
}
