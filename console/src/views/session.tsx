/**
 * One session, live: its status, usage against its limits, the conversation and tool calls as
 * they happen (the events WebSocket), the text the model is writing, the calls that wait for a
 * person, the per-step timings, and the controls (pause, resume, cancel).
 */
import { useCallback, useEffect, useReducer, useRef, useState } from "preact/hooks";
import { isNotFound, NO_STORE } from "../api";
import { useConsole } from "../context";
import { usePoll, useThrottle } from "../hooks";
import { type Connection, watchSession } from "../live/session-socket";
import { INITIAL_LIVE_STATE, type LiveToolCall, liveReducer, waitingCalls } from "../live/session-state";
import { HOME, routeHref } from "../route";
import { isFinal, type Session, type SessionStatus, type Step, type ToolCall } from "../types";
import { AgentLink, Ago, Creator, ErrorNote, Loading, Page, StatusBadge } from "./common";
import { Conversation } from "./conversation";
import { SessionSetup } from "./session-setup";
import { SessionControls } from "./session-controls";
import { RaiseBudget } from "./raise-budget";
import { Steps } from "./steps";
import { SubagentTree } from "./subagents";
import { ToolCalls } from "./tool-calls";
import { UsageMeters } from "./usage";

/** Without a live stream the session is read this often (a 304 while unchanged). */
const SESSION_POLL_MS = 5_000;
/** Lists read beside the stream (timings, decisions) are read at most this often while events flow. */
const SIDE_READ_MS = 1_000;
/** And once more this long after the last burst. */
const SETTLE_READ_MS = 3_000;
/** Pages of tool calls and steps read at most, 200 each. */
const MAX_PAGES = 10;
const EARLIER_PAGE = 50;

export function SessionPage(props: { id: string }) {
  const { api, baseUrl, me } = useConsole();
  const { id } = props;
  const [live, dispatch] = useReducer(liveReducer, INITIAL_LIVE_STATE);
  const [connection, setConnection] = useState<Connection>({ state: "connecting" });
  const [steps, setSteps] = useState<Step[] | null>(null);
  const liveRef = useRef(live);
  liveRef.current = live;

  const session = usePoll<Session>(
    `session|${id}`,
    (etag) =>
      api.conditional(etag, (client, ifNoneMatch) =>
        client.GET("/v1/sessions/{id}", {
          params: { path: { id }, header: ifNoneMatch ? { "if-none-match": ifNoneMatch } : {} },
          ...NO_STORE,
        }),
      ),
    connection.state === "live" ? null : SESSION_POLL_MS,
  );

  const readToolCalls = useCallback(async () => {
    const calls: ToolCall[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await api.call((client) =>
        client.GET("/v1/sessions/{id}/tool-calls", { params: { path: { id }, query: { limit: 200, ...(cursor ? { cursor } : {}) } } }),
      );
      calls.push(...answer.data);
      if (!answer.next_cursor) break;
      cursor = answer.next_cursor;
    }
    dispatch({ kind: "tool_calls", calls: calls as LiveToolCall[] });
  }, [api, id]);

  const readSteps = useCallback(async () => {
    const all: Step[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const answer = await api.call((client) =>
        client.GET("/v1/sessions/{id}/steps", { params: { path: { id }, query: { limit: 200, ...(cursor ? { cursor } : {}) } } }),
      );
      all.push(...answer.data);
      if (!answer.next_cursor) break;
      cursor = answer.next_cursor;
    }
    setSteps(all);
  }, [api, id]);

  const readBeside = () => {
    session.refresh();
    void readToolCalls().catch(() => undefined);
    void readSteps().catch(() => undefined);
  };
  // A unit's step row is written as the unit ends, which may be just after its last event; when
  // no event follows (a wait for approval), a second read once things settle picks it up.
  const settle = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (settle.current !== null) clearTimeout(settle.current);
    },
    [],
  );
  const sideReads = useThrottle(() => {
    readBeside();
    if (settle.current !== null) clearTimeout(settle.current);
    settle.current = setTimeout(readBeside, SETTLE_READ_MS);
  }, SIDE_READ_MS);

  useEffect(() => {
    void readToolCalls().catch(() => undefined);
    void readSteps().catch(() => undefined);
    return watchSession({
      sessionId: id,
      streamToken: async () => (await api.call((client) => client.POST("/v1/auth/stream-token", NO_STORE))).access_token,
      baseUrl,
      lastEventId: () => liveRef.current.lastEventId,
      onFrame: (frame) => {
        dispatch({ kind: "frame", frame });
        // A snapshot too: the lists read when the page opened may be older than it (a call
        // made between the two is in the snapshot, its timings only in the list).
        // Streamed text and its resets change nothing the lists hold.
        if (frame.type !== "delta" && frame.type !== "delta_reset") sideReads();
      },
      onConnection: (connection) => {
        setConnection(connection);
        if (connection.state === "reconnecting") dispatch({ kind: "reconnecting" });
      },
      stillWatchable: async () => {
        try {
          const current = await api.call((client) => client.GET("/v1/sessions/{id}", { params: { path: { id } }, ...NO_STORE }));
          return isFinal(current.status) ? "ended" : "yes";
        } catch (error) {
          if (isNotFound(error)) return "not_found";
          throw error;
        }
      },
    });
  }, [id, api, baseUrl, readToolCalls, readSteps, sideReads]);

  const data = session.data;
  if (!data && session.loading)
    return (
      <Page title="Session">
        <Loading what="the session" />
      </Page>
    );
  if (!data) {
    const gone = connection.state === "stopped" && connection.why === "not_found";
    return (
      <Page title="Session">
        {gone || isNotFound(session.failure) ? (
          <ErrorNote
            message={`No session ${id} in tenant ${me.tenant.tenant_id} that you can see. It may not exist, or it belongs to someone else.`}
          />
        ) : (
          <ErrorNote message={session.error ?? "The session could not be read."} retry={session.refresh} />
        )}
        <p>
          <a href={routeHref(HOME)}>Back to the sessions</a>
        </p>
      </Page>
    );
  }

  // The stream's status is newer than the last read of the session whenever it has one.
  const status: SessionStatus = live.status ?? data.status;
  const usage = live.usage ?? data.usage;
  const stopReason = live.status ? live.stopReason : data.stop_reason;
  const error = live.status ? live.error : data.error;
  const waiting = waitingCalls(live.toolCalls);

  return (
    <Page
      title={`Session ${data.id}`}
      subtitle={
        <>
          <StatusBadge status={status} />
          {stopReason && <span class="muted"> {stopReason}</span>} · created by <Creator subject={data.created_by} />{" "}
          <Ago iso={data.created_at} /> · model <code>{data.model}</code>
          {data.agent && (
            <>
              {" "}
              · agent <AgentLink pin={data.agent} />
            </>
          )}
          {data.parent && (
            <>
              {" "}
              · sub-agent of <a href={routeHref({ view: "session", id: data.parent.session_id })}>{data.parent.session_id}</a>
            </>
          )}{" "}
          · <LiveIndicator connection={connection} />
        </>
      }
      actions={
        <>
          {me.powers.write && (
            <SessionControls
              id={data.id}
              status={status}
              onChanged={() => {
                session.refresh();
              }}
            />
          )}
          {me.powers.tenantAdmin && status === "waiting_budget" && (
            <RaiseBudget id={data.id} limits={data.limits} wait={data.budget_wait} onChanged={() => session.refresh()} />
          )}
        </>
      }
    >
      {data.title && <p class="session-title">{data.title}</p>}
      {error && (
        <p class="state error" role="alert">
          {error}
        </p>
      )}
      {waiting.length > 0 && (
        <p class="attention" role="status">
          {waiting.length === 1 ? "A tool call waits" : `${waiting.length} tool calls wait`} for you.{" "}
          <button type="button" class="link" onClick={focusFirstWaitingCall}>
            Go to it
          </button>
        </p>
      )}
      {session.error && (
        <p class="stale" role="status">
          Could not refresh: {session.error}
        </p>
      )}
      <div class="session-grid">
        <div class="session-main">
          <Conversation
            messages={live.messages}
            drafts={live.drafts}
            hasEarlier={live.hasEarlierMessages}
            sessionId={data.id}
            onEarlier={(messages) => dispatch({ kind: "earlier_messages", messages })}
            earlierPageSize={EARLIER_PAGE}
            connected={connection.state !== "connecting" || live.lastEventId !== null}
          />
        </div>
        <aside class="session-side" aria-label="Tool calls, usage and steps">
          <SessionSetup session={data} />
          <SubagentTree sessionId={data.id} live={!isFinal(status)} />
          <ToolCalls sessionId={data.id} calls={live.toolCalls} canWrite={me.powers.write} onDecided={sideReads} />
          <UsageMeters usage={usage} limits={data.limits} />
          <Steps steps={steps} />
        </aside>
      </div>
    </Page>
  );
}

/** Moves the focus to the first control of the first call that waits (Approve, or the output field). */
function focusFirstWaitingCall() {
  document.querySelector<HTMLElement>(".call.waiting button, .call.waiting textarea")?.focus();
}

function LiveIndicator(props: { connection: Connection }) {
  const { connection } = props;
  const text =
    connection.state === "live"
      ? "live"
      : connection.state === "connecting"
        ? "connecting…"
        : connection.state === "reconnecting"
          ? "reconnecting…"
          : connection.state === "ended"
            ? "ended"
            : connection.why === "suspended"
              ? "stopped: the tenant is suspended"
              : connection.why === "signed_out"
                ? "stopped: sign in again"
                : "stopped";
  return (
    <span class={`live live-${connection.state}`} aria-live="polite">
      {text}
    </span>
  );
}
