/**
 * The tenant's status-webhook endpoints (tenant admins): where session status notifications go
 * and which types each receives; a new one, and a deletion that asks first. Each opens its
 * delivery log.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction, usePaged } from "../hooks";
import { routeHref } from "../route";
import { NOTIFICATION_TYPES, type NotificationType, type WebhookEndpoint } from "../types";
import { Ago, ConfirmedButton, Creator, Empty, ErrorNote, Field, Loading, MoreButton, Page } from "./common";

const PAGE_SIZE = 50;

export function WebhooksPage() {
  const { api, me } = useConsole();
  const [version, setVersion] = useState(0);
  const list = usePaged<WebhookEndpoint, string>(`webhooks|${version}`, async (cursor) => {
    const page = await api.call((client) =>
      client.GET("/v1/tenant/webhooks", { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } }),
    );
    return { rows: page.data, next: page.next_cursor };
  });
  const changed = () => setVersion((n) => n + 1);
  if (!me.powers.tenantAdmin) {
    return (
      <Page title="Webhooks">
        <ErrorNote message="Managing webhooks needs the scope tenant:admin." />
      </Page>
    );
  }
  return (
    <Page title="Webhooks" subtitle="Endpoints that get a signed POST when a session ends or starts waiting for someone.">
      <div class="admin-grid">
        <CreateEndpoint onCreated={changed} />
        <section class="panel" aria-labelledby="endpoints-title">
          <h2 id="endpoints-title">Endpoints</h2>
          {list.rows.length === 0 && list.error ? (
            <ErrorNote message={list.error} retry={list.reload} />
          ) : list.rows.length === 0 && list.loading ? (
            <Loading what="webhooks" />
          ) : list.rows.length === 0 ? (
            <Empty>
              <p>No endpoints yet.</p>
            </Empty>
          ) : (
            <table class="webhooks responsive">
              <caption class="visually-hidden">Webhook endpoints, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Created by</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.rows.map((endpoint) => (
                  <tr key={endpoint.id} data-endpoint={endpoint.id}>
                    <th scope="row" data-label="URL">
                      <a href={routeHref({ view: "webhook", id: endpoint.id })}>{endpoint.url}</a>
                      {endpoint.description && <span class="detail">{endpoint.description}</span>}
                    </th>
                    <td data-label="Events">{endpoint.event_types.join(", ")}</td>
                    <td data-label="Created by">
                      <Creator subject={endpoint.created_by} />
                    </td>
                    <td data-label="Created">
                      <Ago iso={endpoint.created_at} />
                    </td>
                    <td data-label="Actions">
                      <ConfirmedButton
                        label="Delete…"
                        ariaLabel={`Delete the endpoint ${endpoint.url}`}
                        title="Delete this endpoint?"
                        confirmLabel="Delete"
                        run={() =>
                          api.call((client) => client.DELETE("/v1/tenant/webhooks/{id}", { params: { path: { id: endpoint.id } } }))
                        }
                        onDone={changed}
                      >
                        <p>
                          <code>{endpoint.url}</code> gets no more notifications; deliveries still owed to it are dropped.
                        </p>
                      </ConfirmedButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <MoreButton list={list} label="More endpoints" />
        </section>
      </div>
    </Page>
  );
}

function CreateEndpoint(props: { onCreated(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [types, setTypes] = useState<NotificationType[]>(["session.done", "session.failed"]);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(null);
    if (url.trim() === "") return setProblem("Give the https URL the notifications go to.");
    if (types.length === 0) return setProblem("Choose at least one event.");
    const done = await action.run(() =>
      api.call((client) =>
        client.POST("/v1/tenant/webhooks", { body: { url: url.trim(), event_types: types, description: description.trim() || null } }),
      ),
    );
    if (done) {
      setUrl("");
      setDescription("");
      props.onCreated();
    }
  };
  const toggle = (type: NotificationType, on: boolean) => setTypes((list) => (on ? [...list, type] : list.filter((t) => t !== type)));
  const error = problem ?? action.error;
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="new-endpoint-title">
      <h2 id="new-endpoint-title">New endpoint</h2>
      <Field id="endpoint-url" label="URL">
        <input
          id="endpoint-url"
          type="url"
          value={url}
          placeholder="https://ops.example.com/agent-events"
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
      </Field>
      <Field id="endpoint-description" label="Description (optional)">
        <input id="endpoint-description" value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
      </Field>
      <fieldset class="field">
        <legend>Events</legend>
        {NOTIFICATION_TYPES.map((type) => (
          <label key={type} class="check">
            <input type="checkbox" checked={types.includes(type)} onChange={(e) => toggle(type, (e.target as HTMLInputElement).checked)} />{" "}
            {type}
          </label>
        ))}
      </fieldset>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Adding…" : "Add endpoint"}
        </button>
      </div>
    </form>
  );
}
