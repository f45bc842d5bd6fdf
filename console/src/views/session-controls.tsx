/** Pause, resume and cancel, offered by the session's status; a cancel asks first. */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction } from "../hooks";
import { ACTIVE_STATUSES, PAUSABLE_STATUSES, type SessionStatus } from "../types";
import { ConfirmDialog } from "./common";

export function SessionControls(props: { id: string; status: SessionStatus; onChanged(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [confirming, setConfirming] = useState(false);
  const path = { params: { path: { id: props.id } } };

  const control = (verb: "pause" | "resume" | "cancel") =>
    action.run(async () => {
      if (verb === "pause") await api.call((client) => client.POST("/v1/sessions/{id}/pause", path));
      if (verb === "resume") await api.call((client) => client.POST("/v1/sessions/{id}/resume", path));
      if (verb === "cancel") await api.call((client) => client.POST("/v1/sessions/{id}/cancel", path));
      props.onChanged();
    });

  return (
    <div class="controls">
      {PAUSABLE_STATUSES.includes(props.status) && (
        <button type="button" disabled={action.pending} onClick={() => void control("pause")}>
          Pause
        </button>
      )}
      {props.status === "paused" && (
        <button type="button" class="primary" disabled={action.pending} onClick={() => void control("resume")}>
          Resume
        </button>
      )}
      {ACTIVE_STATUSES.includes(props.status) && (
        <button
          type="button"
          class="danger"
          disabled={action.pending}
          onClick={() => {
            action.clearError();
            setConfirming(true);
          }}
        >
          Cancel session…
        </button>
      )}
      {action.error && !confirming && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        title="Cancel this session?"
        confirmLabel="Cancel the session"
        danger
        pending={action.pending}
        error={action.error}
        onConfirm={async () => {
          if (await control("cancel")) setConfirming(false);
        }}
        onClose={() => setConfirming(false)}
      >
        <p>
          The run stops now: the call in flight is abandoned and its answer never saved. The session ends <em>cancelled</em>; a new message
          can start another run later.
        </p>
      </ConfirmDialog>
    </div>
  );
}
