/**
 * The audit logs, newest first: the tenant's (tenant admins), and the platform's (platform admins:
 * one tenant's whole log, or without a tenant the platform actions of every tenant). Filtered by
 * action, actor, time and tenant, kept in the address; each entry's details (before and after)
 * open on request. The platform never puts a secret in them, so the page shows them as they are.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { usePaged } from "../hooks";
import { type AuditFilter, NO_AUDIT_FILTER, routeHref } from "../route";
import { AUDIT_ACTIONS, type AuditEntry, isAuditAction } from "../types";
import { Empty, ErrorNote, Field, Loading, MoreButton, Page } from "./common";

const PAGE_SIZE = 50;

type Scope = "tenant" | "platform";

const hrefOf = (scope: Scope, filter: AuditFilter) => routeHref({ view: "audit_log", scope, ...filter });

export function AuditLogPage(props: { scope: Scope; filter: AuditFilter }) {
  const { api, me } = useConsole();
  const { scope } = props;
  // An action the API does not list (an address typed by hand) is no filter.
  const action = props.filter.action !== null && isAuditAction(props.filter.action) ? props.filter.action : null;
  const filter = { ...props.filter, action };
  const platform = scope === "platform";
  const [version, setVersion] = useState(0);
  const list = usePaged<AuditEntry, string>(`audit|${hrefOf(scope, filter)}|${version}`, async (cursor) => {
    const query = {
      limit: PAGE_SIZE,
      ...(action ? { action } : {}),
      ...(filter.actor ? { actor: filter.actor } : {}),
      ...(filter.since ? { since: filter.since } : {}),
      ...(filter.until ? { until: filter.until } : {}),
      ...(cursor ? { cursor } : {}),
    };
    const page = platform
      ? await api.call((client) =>
          client.GET("/v1/admin/audit-log", {
            params: { query: { ...query, ...(filter.tenantId ? { tenant_id: filter.tenantId } : {}) } },
          }),
        )
      : await api.call((client) => client.GET("/v1/tenant/audit-log", { params: { query } }));
    return { rows: page.data, next: page.next_cursor };
  });
  const title = platform ? "Platform audit log" : "Audit log";
  if (platform ? !me.powers.platformAdmin : !me.powers.tenantAdmin) {
    return (
      <Page title={title}>
        <ErrorNote
          message={
            platform
              ? "Only platform admins (scope platform:admin) read the platform's audit log."
              : "The audit log needs the scope tenant:admin."
          }
        />
      </Page>
    );
  }
  const filtered = Object.values(filter).some((value) => value !== null);
  return (
    <Page
      title={title}
      subtitle={
        platform ? (
          filter.tenantId ? (
            <>
              Every change to tenant <strong>{filter.tenantId}</strong>, its own and the platform's. Kept 400 days.
            </>
          ) : (
            "The platform actions (limits, models, suspension, deletion) of every tenant; name a tenant for all of its entries. Kept 400 days."
          )
        ) : (
          <>
            Every administrative change to tenant <strong>{me.tenant.tenant_id}</strong>: who made it, how, and what changed. Kept 400 days.
          </>
        )
      }
      actions={
        <button type="button" onClick={() => setVersion((n) => n + 1)}>
          Refresh
        </button>
      }
    >
      <Filters key={hrefOf(scope, filter)} scope={scope} filter={filter} />
      {list.rows.length === 0 && list.error ? (
        <ErrorNote message={list.error} retry={list.reload} />
      ) : list.rows.length === 0 && list.loading ? (
        <Loading what="the audit log" />
      ) : list.rows.length === 0 ? (
        <Empty>
          <p>{filtered ? "No entries match these filters." : "No changes recorded yet."}</p>
        </Empty>
      ) : (
        <EntryTable scope={scope} filter={filter} rows={list.rows} />
      )}
      <MoreButton list={list} label="More entries" />
    </Page>
  );
}

/** `datetime-local` speaks local time without a zone; the address and the API speak ISO 8601. */
function localInput(iso: string | null): string {
  if (!iso) return "";
  const at = new Date(iso);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function isoOf(local: string): string | null {
  const at = new Date(local);
  return local && !Number.isNaN(at.getTime()) ? at.toISOString() : null;
}

function Filters(props: { scope: Scope; filter: AuditFilter }) {
  const { filter } = props;
  const [fields, setFields] = useState({
    tenantId: filter.tenantId ?? "",
    action: filter.action ?? "",
    actor: filter.actor ?? "",
    since: localInput(filter.since),
    until: localInput(filter.until),
  });
  const set = (name: keyof typeof fields) => (event: Event) =>
    setFields({ ...fields, [name]: (event.target as HTMLInputElement | HTMLSelectElement).value });
  const submit = (event: Event) => {
    event.preventDefault();
    window.location.hash = hrefOf(props.scope, {
      tenantId: props.scope === "platform" ? fields.tenantId.trim() || null : null,
      action: isAuditAction(fields.action) ? fields.action : null,
      actor: fields.actor.trim() || null,
      since: isoOf(fields.since),
      until: isoOf(fields.until),
    });
  };
  return (
    <form class="audit-filters" role="search" aria-label="Filter the entries" onSubmit={submit}>
      {props.scope === "platform" && (
        <Field id="audit-tenant" label="Tenant">
          <input id="audit-tenant" type="search" value={fields.tenantId} placeholder="every tenant" onInput={set("tenantId")} />
        </Field>
      )}
      <Field id="audit-action" label="Action">
        <select id="audit-action" value={fields.action} onChange={set("action")}>
          <option value="">any action</option>
          {AUDIT_ACTIONS.map((action) => (
            <option key={action} value={action}>
              {action}
            </option>
          ))}
        </select>
      </Field>
      <Field id="audit-actor" label="Actor">
        <input id="audit-actor" type="search" value={fields.actor} placeholder="any subject" onInput={set("actor")} />
      </Field>
      <Field id="audit-since" label="Since">
        <input id="audit-since" type="datetime-local" value={fields.since} onInput={set("since")} />
      </Field>
      <Field id="audit-until" label="Until">
        <input id="audit-until" type="datetime-local" value={fields.until} onInput={set("until")} />
      </Field>
      <div class="actions">
        <button type="submit" class="primary">
          Filter
        </button>
        {Object.values(filter).some((value) => value !== null) && <a href={hrefOf(props.scope, NO_AUDIT_FILTER)}>Clear</a>}
      </div>
    </form>
  );
}

function EntryTable(props: { scope: Scope; filter: AuditFilter; rows: AuditEntry[] }) {
  const platform = props.scope === "platform";
  return (
    <table class="audit-log responsive">
      <caption class="visually-hidden">Audit entries, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          {platform && <th scope="col">Tenant</th>}
          <th scope="col">Actor</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col">Request</th>
          <th scope="col">Client IP</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((entry) => (
          <tr key={entry.id} data-entry={entry.id} data-action={entry.action}>
            <th scope="row" data-label="Time">
              <time dateTime={entry.at} title={entry.at}>
                {new Date(entry.at).toLocaleString()}
              </time>
            </th>
            {platform && (
              <td data-label="Tenant">
                <a href={hrefOf("platform", { ...props.filter, tenantId: entry.tenant_id })}>{entry.tenant_id}</a>
              </td>
            )}
            <td data-label="Actor">
              {entry.actor ? (
                <>
                  {entry.actor.sub}
                  <span class="detail">
                    via {entry.actor.via === "api_key" ? "API key" : "token"}
                    {entry.actor.key_id && <code> {entry.actor.key_id}</code>}
                  </span>
                </>
              ) : (
                <span class="muted">the platform</span>
              )}
            </td>
            <td data-label="Action">
              <code>{entry.action}</code>
            </td>
            <td data-label="Target">
              {entry.target.type} <code class="id">{entry.target.id}</code>
            </td>
            <td data-label="Request">
              {entry.request_id ? <code>{entry.request_id}</code> : <span class="muted">none</span>}
              {entry.client_request_id && (
                <span class="detail">
                  client's <code>{entry.client_request_id}</code>
                </span>
              )}
            </td>
            <td data-label="Client IP">{entry.client_ip ?? <span class="muted">none</span>}</td>
            <td data-label="Details">
              <Details entry={entry} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Closed until asked for: a change's before and after side by side, anything else as it was recorded. */
function Details(props: { entry: AuditEntry }) {
  const { before, after, ...rest } = props.entry.details;
  const change = "before" in props.entry.details || "after" in props.entry.details;
  if (!change && Object.keys(rest).length === 0) return <span class="muted">none</span>;
  return (
    <details class="audit-details">
      <summary>
        {change ? "Before and after" : "Details"}
        <span class="visually-hidden">
          {" "}
          of {props.entry.action} {props.entry.target.id}
        </span>
      </summary>
      {change ? (
        <dl>
          <dt>Before</dt>
          <dd>
            <pre>{json(before)}</pre>
          </dd>
          <dt>After</dt>
          <dd>
            <pre>{json(after)}</pre>
          </dd>
        </dl>
      ) : null}
      {Object.keys(rest).length > 0 && <pre>{json(rest)}</pre>}
    </details>
  );
}
