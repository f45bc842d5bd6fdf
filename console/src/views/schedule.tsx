/** One schedule: what it runs and when, its controls, and its firings (each with the session it made or reached). */
import { useState } from "preact/hooks";
import { isNotFound } from "../api";
import { useConsole } from "../context";
import { formatJson } from "../format";
import { unconditional, usePaged, usePoll } from "../hooks";
import { routeHref } from "../route";
import type { Firing, Schedule } from "../types";
import { Ago, Creator, Empty, ErrorNote, Loading, MoreButton, Page } from "./common";
import { ScheduleControls, ScheduleState, whatItRuns } from "./schedules";

const PAGE_SIZE = 50;
const SCHEDULE_POLL_MS = 10_000;

export function SchedulePage(props: { id: string }) {
  const { api, me } = useConsole();
  const [version, setVersion] = useState(0);
  const schedule = usePoll<Schedule>(
    `schedule|${props.id}`,
    () => unconditional(api.call((client) => client.GET("/v1/schedules/{id}", { params: { path: { id: props.id } } }))),
    SCHEDULE_POLL_MS,
  );
  const firings = usePaged<Firing, string>(`firings|${props.id}|${version}`, async (cursor) => {
    const page = await api.call((client) =>
      client.GET("/v1/schedules/{id}/firings", {
        params: { path: { id: props.id }, query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
      }),
    );
    return { rows: page.data, next: page.next_cursor };
  });
  const data = schedule.data;
  if (!data) {
    return (
      <Page title="Schedule">
        {schedule.loading ? (
          <Loading what="the schedule" />
        ) : isNotFound(schedule.failure) ? (
          <ErrorNote message={`No schedule ${props.id} that you can see.`} />
        ) : (
          <ErrorNote message={schedule.error ?? "The schedule could not be read."} retry={schedule.refresh} />
        )}
        <p>
          <a href={routeHref({ view: "schedules" })}>Back to the schedules</a>
        </p>
      </Page>
    );
  }
  return (
    <Page
      title={`Schedule ${data.id}`}
      subtitle={
        <>
          <ScheduleState schedule={data} /> · <code>{data.cron}</code> in {data.timezone} · created by <Creator subject={data.created_by} />
        </>
      }
      actions={
        me.powers.write && (
          <ScheduleControls
            schedule={data}
            onChanged={schedule.refresh}
            onDeleted={() => {
              window.location.hash = routeHref({ view: "schedules" });
            }}
          />
        )
      }
    >
      <div class="admin-grid">
        <section class="panel" aria-labelledby="schedule-what-title">
          <h2 id="schedule-what-title">What it runs</h2>
          <p>{whatItRuns(data)}</p>
          <dl class="facts">
            <dt>Next run</dt>
            <dd>
              <Ago iso={data.next_run_at} />
            </dd>
            <dt>Last fired</dt>
            <dd>
              <Ago iso={data.last_fired_at} />
            </dd>
            <dt>Expires</dt>
            <dd>{data.expires_at ? <Ago iso={data.expires_at} /> : "never"}</dd>
          </dl>
          <details>
            <summary>Body</summary>
            <pre>{formatJson(data.session ?? data.message)}</pre>
          </details>
        </section>
        <section class="panel" aria-labelledby="firings-title">
          <h2 id="firings-title">Firings, newest first</h2>
          <button type="button" onClick={() => setVersion((n) => n + 1)}>
            Refresh
          </button>
          {firings.rows.length === 0 && firings.error ? (
            <ErrorNote message={firings.error} retry={firings.reload} />
          ) : firings.rows.length === 0 && firings.loading ? (
            <Loading what="firings" />
          ) : firings.rows.length === 0 ? (
            <Empty>
              <p>It has not fired yet.</p>
            </Empty>
          ) : (
            <table class="firings responsive">
              <caption class="visually-hidden">Firings, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Slot</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Session</th>
                  <th scope="col">Fired</th>
                </tr>
              </thead>
              <tbody>
                {firings.rows.map((firing) => (
                  <tr key={firing.scheduled_at} data-firing={firing.scheduled_at}>
                    <th scope="row" data-label="Slot">
                      <time dateTime={firing.scheduled_at}>{firing.scheduled_at.replace("T", " ").slice(0, 19)}</time>
                    </th>
                    <td data-label="Outcome">
                      <span class={`outcome outcome-${firing.outcome}`}>{firing.outcome}</span>
                      {firing.error && <span class="detail">{firing.error}</span>}
                    </td>
                    <td data-label="Session">
                      {firing.session_id ? (
                        <a href={routeHref({ view: "session", id: firing.session_id })}>{firing.session_id}</a>
                      ) : (
                        <span class="muted">—</span>
                      )}
                    </td>
                    <td data-label="Fired">
                      <Ago iso={firing.fired_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <MoreButton list={firings} label="More firings" />
        </section>
      </div>
    </Page>
  );
}
