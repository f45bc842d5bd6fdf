/**
 * A session's tool calls, newest answers last, with what a person can do about the waiting
 * ones: approve, deny with a reason (the model reads it), or submit a client tool's output.
 * Who approved or denied each call and when, or that its approval expired, is shown once decided.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { decisionLabel, formatDuration, formatJson } from "../format";
import { useAction } from "../hooks";
import type { LiveToolCall } from "../live/session-state";
import { Ago, Empty } from "./common";

export function ToolCalls(props: { sessionId: string; calls: LiveToolCall[]; canWrite: boolean; onDecided(): void }) {
  return (
    <section class="tool-calls" aria-labelledby="tool-calls-title">
      <h2 id="tool-calls-title">Tool calls</h2>
      {props.calls.length === 0 ? (
        <Empty>
          <p>No tool calls yet.</p>
        </Empty>
      ) : (
        <ol class="calls">
          {props.calls.map((call) => (
            <li key={call.id}>
              <ToolCallCard sessionId={props.sessionId} call={call} canWrite={props.canWrite} onDecided={props.onDecided} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** What the tool policy decided before the call ran (docs/policy.md). */
const POLICY_LABELS = { allow: "allowed", deny: "denied", require_approval: "held for approval" } as const;

function ToolCallCard(props: { sessionId: string; call: LiveToolCall; canWrite: boolean; onDecided(): void }) {
  const { call } = props;
  const waiting = call.status === "waiting_approval" || call.status === "waiting_tool_output";
  const decision = decisionLabel(call);
  const took = call.started_at && call.finished_at ? Date.parse(call.finished_at) - Date.parse(call.started_at) : null;
  return (
    <article class={`call call-${call.status}${waiting ? " waiting" : ""}`} data-call={call.id} aria-label={`Tool call ${call.name}`}>
      <header>
        <code class="name">{call.name}</code>
        <span class={`call-status call-status-${call.status}`}>{call.status.replace(/_/g, " ")}</span>
      </header>
      <dl class="facts">
        <dt>Step</dt>
        <dd>{call.step}</dd>
        {call.created_at && (
          <>
            <dt>Asked</dt>
            <dd>
              <Ago iso={call.created_at} />
            </dd>
          </>
        )}
        {took !== null && (
          <>
            <dt>Ran</dt>
            <dd>{formatDuration(took)}</dd>
          </>
        )}
        {call.policy && (
          <>
            <dt>Policy</dt>
            <dd data-policy={call.policy.decision}>
              {POLICY_LABELS[call.policy.decision]}
              {call.policy.policy_ids.length > 0 && <> by {call.policy.policy_ids.join(", ")}</>}
            </dd>
          </>
        )}
        {decision && (
          <>
            <dt>{decision.term}</dt>
            <dd>
              {decision.detail} <Ago iso={call.decided_at} />
            </dd>
          </>
        )}
      </dl>
      <details open={waiting}>
        <summary>Input</summary>
        <pre>{formatJson(call.input)}</pre>
      </details>
      {call.output !== null && call.output !== undefined && (
        <details open={call.is_error}>
          <summary>{call.is_error ? "Error" : "Output"}</summary>
          <pre class={call.is_error ? "is-error" : undefined}>{call.output}</pre>
        </details>
      )}
      {props.canWrite && call.status === "waiting_approval" && (
        <Decide sessionId={props.sessionId} callId={call.id} onDone={props.onDecided} />
      )}
      {props.canWrite && call.status === "waiting_tool_output" && (
        <SubmitOutput sessionId={props.sessionId} callId={call.id} onDone={props.onDecided} />
      )}
    </article>
  );
}

function Decide(props: { sessionId: string; callId: string; onDone(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState("");
  const path = { params: { path: { id: props.sessionId, call_id: props.callId } } };
  const fieldId = `deny-reason-${props.callId}`;

  const approve = () =>
    action.run(async () => {
      await api.call((client) => client.POST("/v1/sessions/{id}/tool-calls/{call_id}/approve", path));
      props.onDone();
    });
  const deny = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const body = reason.trim() ? { reason: reason.trim() } : {};
      await api.call((client) => client.POST("/v1/sessions/{id}/tool-calls/{call_id}/deny", { ...path, body }));
      props.onDone();
    });
  };

  return (
    <div class="decide">
      {!denying ? (
        <div class="actions">
          <button type="button" class="primary" disabled={action.pending} onClick={() => void approve()}>
            Approve
          </button>
          <button type="button" disabled={action.pending} onClick={() => setDenying(true)}>
            Deny…
          </button>
        </div>
      ) : (
        <form onSubmit={deny}>
          <label for={fieldId}>Reason (the model reads it)</label>
          <input
            id={fieldId}
            type="text"
            maxLength={1000}
            value={reason}
            onInput={(event) => setReason((event.target as HTMLInputElement).value)}
          />
          <div class="actions">
            <button type="submit" class="danger" disabled={action.pending}>
              Deny
            </button>
            <button type="button" disabled={action.pending} onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </form>
      )}
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
    </div>
  );
}

function SubmitOutput(props: { sessionId: string; callId: string; onDone(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [output, setOutput] = useState("");
  const [isError, setIsError] = useState(false);
  const fieldId = `output-${props.callId}`;

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api.call((client) =>
        client.POST("/v1/sessions/{id}/tool-calls/{call_id}/output", {
          params: { path: { id: props.sessionId, call_id: props.callId } },
          body: { output, ...(isError ? { is_error: true } : {}) },
        }),
      );
      props.onDone();
    });
  };

  return (
    <form class="submit-output" onSubmit={submit}>
      <label for={fieldId}>Tool output</label>
      <textarea id={fieldId} rows={3} required value={output} onInput={(event) => setOutput((event.target as HTMLTextAreaElement).value)} />
      <label class="check">
        <input type="checkbox" checked={isError} onChange={(event) => setIsError((event.target as HTMLInputElement).checked)} /> The tool
        failed
      </label>
      <button type="submit" class="primary" disabled={action.pending}>
        Submit output
      </button>
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
    </form>
  );
}
