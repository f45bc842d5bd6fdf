/** Platform admins: deleting a tenant (confirmed first), then its progress until nothing of it is left. */
import { useEffect } from "preact/hooks";
import { useConsole } from "../context";
import { formatNumber } from "../format";
import type { AdminTenant } from "../types";
import { ConfirmedButton } from "./common";

/** How often the page reads the tenant again while its deletion runs. */
const PROGRESS_POLL_MS = 1_000;

export function TenantDeletion(props: { tenantId: string; deletion: AdminTenant["deletion"]; onChanged(): void }) {
  const { api } = useConsole();
  const { deletion, onChanged } = props;
  const deleting = deletion?.status === "deleting";
  useEffect(() => {
    if (!deleting) return;
    const timer = setInterval(onChanged, PROGRESS_POLL_MS);
    return () => clearInterval(timer);
  }, [deleting, onChanged]);
  if (deletion) {
    return (
      <span class="result" role="status">
        {deletion.status === "deleted"
          ? `Deleted ${new Date(deletion.finished_at ?? deletion.started_at).toLocaleString()}: nothing of the tenant is left.`
          : `Deleting since ${new Date(deletion.started_at).toLocaleString()}: ${formatNumber(deletion.sessions_left)} sessions left.`}
      </span>
    );
  }
  return (
    <ConfirmedButton
      label="Delete tenant…"
      title={`Delete tenant ${props.tenantId}?`}
      confirmLabel="Delete for good"
      run={() => api.call((client) => client.DELETE("/v1/admin/tenants/{tenant_id}", { params: { path: { tenant_id: props.tenantId } } }))}
      onDone={onChanged}
    >
      <p>
        The tenant is suspended at once, then every session, schedule, agent, memory item, API key, webhook and setting of it is erased.
        This cannot be undone.
      </p>
    </ConfirmedButton>
  );
}
