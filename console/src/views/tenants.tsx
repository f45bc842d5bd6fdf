/** Platform admins: every tenant with its suspension and its usage over the last days. */
import { useConsole } from "../context";
import { formatNumber, totalTokens } from "../format";
import { unconditional, usePoll } from "../hooks";
import { NO_AUDIT_FILTER, routeHref } from "../route";
import type { TenantListItem } from "../types";
import { Ago, Empty, ErrorNote, Loading, Page } from "./common";
import { jurisdictionLabel, NewTenantJurisdiction } from "./residency";

const TENANTS_POLL_MS = 15_000;
const PAGE_SIZE = 50;

export function TenantsPage(props: { cursor: string | null }) {
  const { api, me } = useConsole();
  const page = usePoll<{ data: TenantListItem[]; next_cursor: string | null }>(
    `tenants|${props.cursor ?? ""}`,
    () =>
      unconditional(
        api.call((client) =>
          client.GET("/v1/admin/tenants", { params: { query: { limit: PAGE_SIZE, ...(props.cursor ? { cursor: props.cursor } : {}) } } }),
        ),
      ),
    TENANTS_POLL_MS,
  );
  if (!me.powers.platformAdmin) {
    return (
      <Page title="Tenants">
        <ErrorNote message="Only platform admins (scope platform:admin) see the tenants." />
      </Page>
    );
  }
  const rows = page.data?.data ?? [];
  return (
    <Page
      title="Tenants"
      subtitle="Every tenant of the platform, with its usage over the last 30 days."
      actions={
        <a class="button" href={routeHref({ view: "audit_log", scope: "platform", ...NO_AUDIT_FILTER })}>
          Platform audit log
        </a>
      }
    >
      {page.error && page.data && (
        <p class="stale" role="status">
          Could not refresh: {page.error}
        </p>
      )}
      {page.loading && !page.data ? (
        <Loading what="tenants" />
      ) : page.error && !page.data ? (
        <ErrorNote message={page.error} retry={page.refresh} />
      ) : rows.length === 0 ? (
        <Empty>
          <p>No tenants yet. A tenant appears the first time one of its tokens or keys is used.</p>
        </Empty>
      ) : (
        <table class="tenants responsive">
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">State</th>
              <th scope="col">Jurisdiction</th>
              <th scope="col" class="num">
                Sessions created
              </th>
              <th scope="col" class="num">
                Steps
              </th>
              <th scope="col" class="num">
                Tokens
              </th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((tenant) => (
              <tr key={tenant.tenant_id} data-tenant={tenant.tenant_id}>
                <th scope="row" data-label="Tenant">
                  <a href={routeHref({ view: "tenant", tenantId: tenant.tenant_id, status: null, createdBy: null, cursor: null })}>
                    {tenant.tenant_id}
                  </a>
                </th>
                <td data-label="State">
                  {tenant.suspended ? <span class="status status-failed">suspended</span> : <span class="status status-done">active</span>}
                </td>
                <td data-label="Jurisdiction">{jurisdictionLabel(tenant.jurisdiction)}</td>
                <td data-label="Sessions created" class="num">
                  {formatNumber(tenant.usage.sessions_created)}
                </td>
                <td data-label="Steps" class="num">
                  {formatNumber(tenant.usage.steps)}
                </td>
                <td data-label="Tokens" class="num">
                  {formatNumber(totalTokens(tenant.usage))}
                </td>
                <td data-label="Since">
                  <Ago iso={tenant.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <nav class="pager" aria-label="Pages">
        {props.cursor && <a href={routeHref({ view: "tenants", cursor: null })}>First page</a>}
        {page.data?.next_cursor && <a href={routeHref({ view: "tenants", cursor: page.data.next_cursor })}>Next →</a>}
      </nav>
      <NewTenantJurisdiction />
    </Page>
  );
}
