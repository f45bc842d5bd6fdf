/** The signed-in tenant's sessions: what a tenant admin (or a member, for its own) watches. */
import { useConsole } from "../context";
import { formatNumber, totalTokens } from "../format";
import { routeHref, type SessionFilter } from "../route";
import { Page } from "./common";
import { SessionList } from "./session-list";

export function SessionsPage(props: { filter: SessionFilter }) {
  const { me } = useConsole();
  const { tenant } = me;
  const subtitle = (
    <>
      Tenant <strong>{tenant.tenant_id}</strong>
      {!me.powers.tenantAdmin && " · only the sessions you created"} · {formatNumber(totalTokens(tenant.usage))} tokens in the last{" "}
      {tenant.usage.window_days} days
    </>
  );
  return (
    <Page
      title="Sessions"
      subtitle={subtitle}
      actions={
        me.powers.write && (
          <a class="button primary" href={routeHref({ view: "new_session" })}>
            New session
          </a>
        )
      }
    >
      <SessionList
        tenantId={tenant.tenant_id}
        own
        filter={props.filter}
        counts={me.powers.tenantAdmin ? tenant.counts : null}
        hrefFor={(filter) => routeHref({ view: "sessions", ...filter })}
        onChanged={me.refreshTenant}
      />
    </Page>
  );
}
