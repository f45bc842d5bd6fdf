/**
 * One status-webhook endpoint's delivery log, newest first, with a filter by outcome: each
 * delivery's event, session, attempts and last answer, and a redelivery (a new delivery of the
 * same notification, same event id) for one that failed or that the receiver lost.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction, usePaged } from "../hooks";
import { routeHref } from "../route";
import type { WebhookDelivery } from "../types";
import { Ago, Empty, ErrorNote, Loading, MoreButton, Page } from "./common";

const PAGE_SIZE = 50;
const OUTCOMES = ["pending", "succeeded", "failed"] as const satisfies readonly WebhookDelivery["status"][];

export function WebhookPage(props: { id: string }) {
  const { api, me } = useConsole();
  const [status, setStatus] = useState<WebhookDelivery["status"] | null>(null);
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const list = usePaged<WebhookDelivery, string>(`deliveries|${props.id}|${status}|${version}`, async (cursor) => {
    const query = { limit: PAGE_SIZE, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) };
    const page = await api.call((client) =>
      client.GET("/v1/tenant/webhooks/{id}/deliveries", { params: { path: { id: props.id }, query } }),
    );
    return { rows: page.data, next: page.next_cursor };
  });
  const title = "Webhook deliveries";
  if (!me.powers.tenantAdmin) {
    return (
      <Page title={title}>
        <ErrorNote message="Webhook deliveries need the scope tenant:admin." />
      </Page>
    );
  }
  return (
    <Page
      title={title}
      subtitle={
        <>
          Endpoint <code>{props.id}</code> · <a href={routeHref({ view: "webhooks" })}>all endpoints</a>
        </>
      }
      actions={
        <button type="button" onClick={() => setVersion((n) => n + 1)}>
          Refresh
        </button>
      }
    >
      <nav class="filters" aria-label="Filter by outcome">
        <button type="button" class="link" aria-pressed={status === null} onClick={() => setStatus(null)}>
          all
        </button>
        {OUTCOMES.map((outcome) => (
          <button key={outcome} type="button" class="link" aria-pressed={status === outcome} onClick={() => setStatus(outcome)}>
            {outcome}
          </button>
        ))}
      </nav>
      {notice && (
        <p class="result" role="status">
          {notice}
        </p>
      )}
      {list.rows.length === 0 && list.error ? (
        <ErrorNote message={list.error} retry={list.reload} />
      ) : list.rows.length === 0 && list.loading ? (
        <Loading what="deliveries" />
      ) : list.rows.length === 0 ? (
        <Empty>
          <p>
            {status
              ? `No ${status} deliveries.`
              : "Nothing delivered yet: deliveries appear when a session reaches a status this endpoint receives."}
          </p>
        </Empty>
      ) : (
        <table class="deliveries responsive">
          <caption class="visually-hidden">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Session</th>
              <th scope="col">Outcome</th>
              <th scope="col" class="num">
                Attempts
              </th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((delivery) => (
              <tr key={delivery.id} data-delivery={delivery.id}>
                <th scope="row" data-label="Event">
                  {delivery.event_type}
                  {delivery.redelivery_of && <span class="detail">redelivery of {delivery.redelivery_of}</span>}
                </th>
                <td data-label="Session">
                  <a href={routeHref({ view: "session", id: delivery.session_id })}>{delivery.session_id}</a>
                </td>
                <td data-label="Outcome">
                  <span class={`outcome outcome-${delivery.status}`}>{delivery.status}</span>
                  {delivery.next_attempt_at && (
                    <span class="detail">
                      next try <Ago iso={delivery.next_attempt_at} />
                    </span>
                  )}
                </td>
                <td data-label="Attempts" class="num">
                  {delivery.attempts}
                </td>
                <td data-label="Last answer">
                  {delivery.response_status ?? <span class="muted">none</span>}
                  {delivery.error && <span class="detail">{delivery.error}</span>}
                </td>
                <td data-label="Created">
                  <Ago iso={delivery.created_at} />
                </td>
                <td data-label="Actions">
                  {delivery.status !== "pending" && (
                    <Redeliver
                      endpointId={props.id}
                      delivery={delivery}
                      onDone={(id) => {
                        setNotice(`Redelivery ${id} queued.`);
                        setVersion((n) => n + 1);
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreButton list={list} label="More deliveries" />
    </Page>
  );
}

function Redeliver(props: { endpointId: string; delivery: WebhookDelivery; onDone(id: string): void }) {
  const { api } = useConsole();
  const action = useAction();
  const run = () =>
    action.run(async () => {
      const made = await api.call((client) =>
        client.POST("/v1/tenant/webhooks/{id}/deliveries/{delivery_id}/redeliver", {
          params: { path: { id: props.endpointId, delivery_id: props.delivery.id } },
        }),
      );
      props.onDone(made.id);
    });
  return (
    <>
      <button
        type="button"
        disabled={action.pending}
        aria-label={`Redeliver ${props.delivery.event_type} of ${props.delivery.session_id}`}
        onClick={() => void run()}
      >
        {action.pending ? "Queuing…" : "Redeliver"}
      </button>
      {action.error && (
        <span class="form-error" role="alert">
          {action.error}
        </span>
      )}
    </>
  );
}
