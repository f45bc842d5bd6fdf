/**
 * The tenant's schedules (the caller's own without tenant:admin): each with its cron and zone,
 * what it runs, its state and next slot; pause, resume and (asking first) delete. Each opens its
 * firings.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction, usePaged } from "../hooks";
import { routeHref } from "../route";
import type { Schedule } from "../types";
import { Ago, ConfirmedButton, Creator, Empty, ErrorNote, Loading, MoreButton, Page } from "./common";

const PAGE_SIZE = 50;

export function SchedulesPage() {
  const { api, me } = useConsole();
  const [version, setVersion] = useState(0);
  const list = usePaged<Schedule, string>(`schedules|${version}`, async (cursor) => {
    const page = await api.call((client) =>
      client.GET("/v1/schedules", { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } }),
    );
    return { rows: page.data, next: page.next_cursor };
  });
  const changed = () => setVersion((n) => n + 1);
  return (
    <Page title="Schedules" subtitle={<>Runs started on a cron{!me.powers.tenantAdmin && " · only the schedules you created"}.</>}>
      {list.rows.length === 0 && list.error ? (
        <ErrorNote message={list.error} retry={list.reload} />
      ) : list.rows.length === 0 && list.loading ? (
        <Loading what="schedules" />
      ) : list.rows.length === 0 ? (
        <Empty>
          <p>No schedules yet. A backend makes one with POST /v1/schedules.</p>
        </Empty>
      ) : (
        <table class="schedules responsive">
          <caption class="visually-hidden">Schedules, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Schedule</th>
              <th scope="col">When</th>
              <th scope="col">State</th>
              <th scope="col">Next run</th>
              <th scope="col">Last fired</th>
              <th scope="col">Created by</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.rows.map((schedule) => (
              <tr key={schedule.id} data-schedule={schedule.id}>
                <th scope="row" data-label="Schedule">
                  <a href={routeHref({ view: "schedule", id: schedule.id })}>{whatItRuns(schedule)}</a>
                  <code class="id">{schedule.id}</code>
                </th>
                <td data-label="When">
                  <code>{schedule.cron}</code> <span class="muted">{schedule.timezone}</span>
                </td>
                <td data-label="State">
                  <ScheduleState schedule={schedule} />
                </td>
                <td data-label="Next run">
                  <Ago iso={schedule.next_run_at} />
                </td>
                <td data-label="Last fired">
                  <Ago iso={schedule.last_fired_at} />
                </td>
                <td data-label="Created by">
                  <Creator subject={schedule.created_by} />
                </td>
                <td data-label="Actions">
                  {me.powers.write && <ScheduleControls schedule={schedule} onChanged={changed} onDeleted={changed} />}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreButton list={list} label="More schedules" />
    </Page>
  );
}

/** A schedule's action in a line: the new session's input, or the message and its session. */
export function whatItRuns(schedule: Schedule): string {
  if (schedule.message) return `Message to ${schedule.message.session_id}: ${textOf(schedule.message.input)}`;
  if (schedule.session) return `New session: ${textOf(schedule.session.input)}`;
  return schedule.id;
}

function textOf(input: unknown): string {
  if (typeof input === "string") return cut(input);
  if (Array.isArray(input))
    return cut(input.map((block) => (block && typeof block === "object" && "text" in block ? String(block.text) : "")).join(" "));
  return "";
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export function ScheduleState(props: { schedule: Schedule }) {
  const { schedule } = props;
  return (
    <>
      <span class={`standing standing-${schedule.status}`}>{schedule.status}</span>
      {schedule.disabled_reason && <span class="detail">{schedule.disabled_reason.replace(/_/g, " ")}</span>}
    </>
  );
}

/** Pause or resume (a PATCH of `paused`), and delete after a question; a disabled schedule can only be deleted. */
export function ScheduleControls(props: { schedule: Schedule; onChanged(): void; onDeleted(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const { schedule } = props;
  const setPaused = (paused: boolean) =>
    action.run(async () => {
      await api.call((client) => client.PATCH("/v1/schedules/{id}", { params: { path: { id: schedule.id } }, body: { paused } }));
      props.onChanged();
    });
  return (
    <div class="row-actions">
      {schedule.status !== "disabled" && (
        <button
          type="button"
          disabled={action.pending}
          aria-label={`${schedule.paused ? "Resume" : "Pause"} ${schedule.id}`}
          onClick={() => void setPaused(!schedule.paused)}
        >
          {schedule.paused ? "Resume" : "Pause"}
        </button>
      )}
      <ConfirmedButton
        label="Delete…"
        ariaLabel={`Delete ${schedule.id}`}
        title="Delete this schedule?"
        confirmLabel="Delete"
        run={() => api.call((client) => client.DELETE("/v1/schedules/{id}", { params: { path: { id: schedule.id } } }))}
        onDone={props.onDeleted}
      >
        <p>It fires no more. The sessions it started stay.</p>
      </ConfirmedButton>
      {action.error && (
        <span class="form-error" role="alert">
          {action.error}
        </span>
      )}
    </div>
  );
}
