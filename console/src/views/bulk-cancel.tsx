/** A tenant admin's bulk cancel: every active session that matches the list's filter, after a question. */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { statusLabel } from "../format";
import { useAction } from "../hooks";
import type { SessionStatus } from "../types";
import { ConfirmDialog } from "./common";

export function BulkCancel(props: { tenantId: string; status: SessionStatus | null; createdBy: string | null; onDone(): void }) {
  const { api } = useConsole();
  const [open, setOpen] = useState(false);
  const [result, setResult] = useState<string | null>(null);
  const action = useAction();
  const what = `${props.status ? `${statusLabel(props.status)} ` : "active "}sessions${props.createdBy ? ` created by ${props.createdBy}` : ""}`;

  const confirm = async () => {
    const done = await action.run(async () => {
      const answer = await api.call((client) =>
        client.POST("/v1/admin/tenants/{tenant_id}/sessions/cancel", {
          params: { path: { tenant_id: props.tenantId } },
          body: { ...(props.status ? { status: props.status } : {}), ...(props.createdBy ? { created_by: props.createdBy } : {}) },
        }),
      );
      setResult(`Cancelled ${answer.cancelled} ${answer.cancelled === 1 ? "session" : "sessions"}.`);
    });
    if (done) {
      setOpen(false);
      props.onDone();
    }
  };

  return (
    <div class="bulk-cancel">
      <button
        type="button"
        class="danger"
        onClick={() => {
          setResult(null);
          action.clearError();
          setOpen(true);
        }}
      >
        Cancel all {what}…
      </button>
      {result && (
        <span class="result" role="status">
          {result}
        </span>
      )}
      <ConfirmDialog
        open={open}
        title={`Cancel all ${what}?`}
        confirmLabel="Cancel them"
        danger
        pending={action.pending}
        error={action.error}
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      >
        <p>
          Every {what} of tenant <strong>{props.tenantId}</strong> stops now: the model call or tool call in flight is abandoned and the
          sessions end <em>cancelled</em>. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}
