/** Small pieces every view uses: a page frame, states (loading, empty, error), status, times, dialogs. */
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { useConsole } from "../context";
import { formatAgo, statusLabel } from "../format";
import { endUserOf, isKeySubject, keyNameOf } from "../key-names";
import { type Paged, useAction } from "../hooks";
import { routeHref } from "../route";
import type { AgentPin, SessionStatus } from "../types";

/** A view: its heading takes the focus when the view opens, so keyboard and reader users land on it. */
export function Page(props: { title: string; subtitle?: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Agent Platform console`;
    heading.current?.focus({ preventScroll: true });
  }, [props.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <div>
          <h1 id="page-title" tabIndex={-1} ref={heading}>
            {props.title}
          </h1>
          {props.subtitle && <p class="subtitle">{props.subtitle}</p>}
        </div>
        {props.actions && <div class="actions">{props.actions}</div>}
      </header>
      {props.children}
    </section>
  );
}

export function Loading(props: { what: string }) {
  return (
    <p class="state loading" role="status">
      Loading {props.what}…
    </p>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="state empty">{props.children}</div>;
}

export function ErrorNote(props: { message: string; retry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <p>{props.message}</p>
      {props.retry && (
        <button type="button" onClick={props.retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function StatusBadge(props: { status: SessionStatus }) {
  return <span class={`status status-${props.status}`}>{statusLabel(props.status)}</span>;
}

export function Ago(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span>—</span>;
  return (
    <time dateTime={props.iso} title={props.iso}>
      {formatAgo(props.iso, Date.now())}
    </time>
  );
}

/** A labelled form field: the label names the control (`id`) it sits above. */
export function Field(props: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
    </div>
  );
}

/**
 * Under a list read page by page: the button that reads the next page (kept while it is read, so
 * it keeps the focus), and the failure of the last such read, with the rows read so far kept.
 */
export function MoreButton(props: { list: Pick<Paged<unknown>, "rows" | "loading" | "error" | "more">; label: string }) {
  const { list } = props;
  return (
    <>
      {list.rows.length > 0 && list.error && (
        <p class="stale" role="alert">
          Could not read more: {list.error}
        </p>
      )}
      {list.more && (
        <button type="button" onClick={list.more}>
          {list.loading ? "Reading more…" : props.label}
        </button>
      )}
    </>
  );
}

/**
 * Who created something: an API key by its name, an end user by its subject (each with the whole
 * principal on hover), anyone else by subject. With `href`, an end user's name links there.
 */
export function Creator(props: { subject: string; href?: string }) {
  const { me } = useConsole();
  const name = keyNameOf(props.subject, me.keyNames);
  const endUser = endUserOf(props.subject);
  const unknownKey = name === null && me.powers.tenantAdmin && isKeySubject(props.subject);
  useEffect(() => {
    if (unknownKey) me.noteUnknownKey();
  }, [unknownKey, me]);
  if (endUser !== null) {
    return (
      <span class="creator end-user" title={props.subject}>
        {props.href ? <a href={props.href}>{endUser}</a> : endUser} <span class="muted">(end user)</span>
      </span>
    );
  }
  if (name === null) return <span>{props.subject}</span>;
  return (
    <span class="creator" title={props.subject}>
      {name} <span class="muted">(API key)</span>
    </span>
  );
}

/** The agent and version a session came from, as `agt_…@3`: a link to that version's changes, or plain text where the agent is not the caller's to open. */
export function AgentLink(props: { pin: NonNullable<AgentPin>; openable?: boolean }) {
  const text = `${props.pin.id}@${props.pin.version}`;
  if (props.openable === false) return <code>{text}</code>;
  return (
    <a class="agent-link" href={routeHref({ view: "agent", id: props.pin.id, from: null, to: props.pin.version })}>
      {text}
    </a>
  );
}

/**
 * A modal question in a native `<dialog>`: it traps the focus, Escape closes it, and the focus
 * returns to the button that opened it.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  pending: boolean;
  error: string | null;
  danger?: boolean;
  onConfirm(): void;
  onClose(): void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  // Whether the dialog is shown as this component asked. A dialog's `close` event comes a task after
  // it closed: by then the question may be open again (Escape, then Enter on its button at once),
  // and that late event must not close it; a close this component made itself needs no answer either.
  const shown = useRef(false);
  // A page may hold several questions (an alias's delete beside the archive): each names its own title.
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (props.open && !element.open) {
      element.showModal();
      shown.current = true;
    }
    if (!props.open && element.open) {
      shown.current = false;
      element.close();
    }
  }, [props.open]);
  const closed = () => {
    // Escape: `cancel` while it is still open; without one (the browser may skip it), `close` once it is not.
    if (!shown.current) return;
    shown.current = false;
    props.onClose();
  };
  return (
    <dialog ref={dialog} class="confirm" aria-labelledby={titleId} onClose={() => dialog.current?.open || closed()} onCancel={closed}>
      <h2 id={titleId}>{props.title}</h2>
      <div class="confirm-body">{props.children}</div>
      {props.error && (
        <p class="form-error" role="alert">
          {props.error}
        </p>
      )}
      <div class="actions">
        <button type="button" class={props.danger ? "danger" : "primary"} disabled={props.pending} onClick={props.onConfirm}>
          {props.pending ? "Working…" : props.confirmLabel}
        </button>
        <button type="button" onClick={props.onClose} disabled={props.pending}>
          Keep as it is
        </button>
      </div>
    </dialog>
  );
}

/**
 * A danger button that asks first: it opens a `ConfirmDialog`, `run` goes only once confirmed, and
 * `onDone` follows when it succeeded (a failure stays in the dialog).
 */
export function ConfirmedButton(props: {
  label: string;
  /** The button's accessible name when `label` alone is too short to tell (`Delete…` beside each alias). */
  ariaLabel?: string;
  title: string;
  confirmLabel: string;
  run(): Promise<unknown>;
  onDone(): void;
  children: ComponentChildren;
}) {
  const action = useAction();
  const [open, setOpen] = useState(false);
  const confirm = async () => {
    if (await action.run(props.run)) {
      setOpen(false);
      props.onDone();
    }
  };
  return (
    <>
      <button
        type="button"
        class="danger"
        aria-label={props.ariaLabel}
        onClick={() => {
          action.clearError();
          setOpen(true);
        }}
      >
        {props.label}
      </button>
      <ConfirmDialog
        open={open}
        title={props.title}
        confirmLabel={props.confirmLabel}
        danger
        pending={action.pending}
        error={action.error}
        onConfirm={confirm}
        onClose={() => setOpen(false)}
      >
        {props.children}
      </ConfirmDialog>
    </>
  );
}
