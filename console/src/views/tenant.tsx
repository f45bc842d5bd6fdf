/** Platform admins: one tenant's usage, limits (edited here), suspension, deletion, and sessions. */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { formatNumber, totalTokens } from "../format";
import { unconditional, useAction, usePoll, useThrottle } from "../hooks";
import { NO_AUDIT_FILTER, routeHref, type SessionFilter } from "../route";
import type { AdminTenant } from "../types";
import { ConfirmDialog, ErrorNote, Loading, Page } from "./common";
import { LimitsForm } from "./limits-form";
import { JurisdictionForm, jurisdictionLabel } from "./residency";
import { SessionList } from "./session-list";
import { ShardsForm } from "./shards";
import { TenantDeletion } from "./tenant-deletion";

const TENANT_POLL_MS = 10_000;
const COUNTS_REFRESH_MS = 3_000;

export function TenantPage(props: { tenantId: string; filter: SessionFilter }) {
  const { api, me } = useConsole();
  const tenant = usePoll<AdminTenant>(
    `admin-tenant|${props.tenantId}`,
    () =>
      unconditional(api.call((client) => client.GET("/v1/admin/tenants/{tenant_id}", { params: { path: { tenant_id: props.tenantId } } }))),
    TENANT_POLL_MS,
  );
  const refreshCounts = useThrottle(tenant.refresh, COUNTS_REFRESH_MS);
  const title = `Tenant ${props.tenantId}`;
  if (!me.powers.platformAdmin) {
    return (
      <Page title={title}>
        <ErrorNote message="Only platform admins (scope platform:admin) manage tenants." />
      </Page>
    );
  }
  const data = tenant.data;
  if (!data) {
    return (
      <Page title={title}>
        {tenant.error ? <ErrorNote message={tenant.error} retry={tenant.refresh} /> : <Loading what="the tenant" />}
      </Page>
    );
  }
  return (
    <Page
      title={title}
      subtitle={
        <>
          {data.suspended ? <strong class="warn">suspended</strong> : "active"} · jurisdiction {jurisdictionLabel(data.jurisdiction)} ·{" "}
          {formatNumber(data.usage.sessions_created)} sessions and {formatNumber(totalTokens(data.usage))} tokens in the last{" "}
          {data.usage.window_days} days
        </>
      }
      actions={
        <>
          <a class="button" href={routeHref({ view: "audit_log", scope: "platform", ...NO_AUDIT_FILTER, tenantId: data.tenant_id })}>
            Tenant's audit log
          </a>
          {!data.deletion && <Suspension tenantId={data.tenant_id} suspended={data.suspended} onChanged={tenant.refresh} />}
          <TenantDeletion tenantId={data.tenant_id} deletion={data.deletion} onChanged={tenant.refresh} />
        </>
      }
    >
      {tenant.error && (
        <p class="stale" role="status">
          Could not refresh: {tenant.error}
        </p>
      )}
      <div class="tenant-grid">
        <div class="tenant-forms">
          <LimitsForm tenant={data} onSaved={tenant.refresh} />
          <JurisdictionForm tenant={data} onSaved={tenant.refresh} />
          <ShardsForm tenant={data} onSaved={tenant.refresh} />
        </div>
        <section aria-labelledby="tenant-sessions-title" class="tenant-sessions">
          <h2 id="tenant-sessions-title">Sessions</h2>
          <SessionList
            tenantId={data.tenant_id}
            own={false}
            filter={props.filter}
            counts={data.counts}
            hrefFor={(filter) => routeHref({ view: "tenant", tenantId: data.tenant_id, ...filter })}
            onChanged={refreshCounts}
          />
        </section>
      </div>
    </Page>
  );
}

function Suspension(props: { tenantId: string; suspended: boolean; onChanged(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const verb = props.suspended ? "Unsuspend" : "Suspend";
  const path = { params: { path: { tenant_id: props.tenantId } } };
  const confirm = async () => {
    const done = await action.run(async () => {
      if (props.suspended) {
        await api.call((client) => client.POST("/v1/admin/tenants/{tenant_id}/unsuspend", path));
        setResult("Unsuspended.");
      } else {
        const answer = await api.call((client) => client.POST("/v1/admin/tenants/{tenant_id}/suspend", path));
        setResult(`Suspended; ${answer.cancelled} active ${answer.cancelled === 1 ? "session" : "sessions"} cancelled.`);
      }
    });
    if (done) {
      setOpen(false);
      props.onChanged();
    }
  };
  return (
    <div class="suspension">
      <button
        type="button"
        class={props.suspended ? "primary" : "danger"}
        onClick={() => {
          action.clearError();
          setResult(null);
          setOpen(true);
        }}
      >
        {verb} tenant…
      </button>
      {result && (
        <span class="result" role="status">
          {result}
        </span>
      )}
      <ConfirmDialog
        open={open}
        title={`${verb} tenant ${props.tenantId}?`}
        confirmLabel={verb}
        danger={!props.suspended}
        pending={action.pending}
        error={action.error}
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      >
        {props.suspended ? (
          <p>Its keys and tokens work again, and its sessions can start new runs.</p>
        ) : (
          <p>
            Every request of the tenant gets 403, its running sessions are cancelled and its open event streams closed, until it is
            unsuspended.
          </p>
        )}
      </ConfirmDialog>
    </div>
  );
}
