/**
 * The tenant's API keys (tenant admins): each with its scopes, who made it, when it was last used
 * and whether it still works; a new key's secret is shown once, right after it is made; a revoke
 * asks first and takes effect at once (its open streams close).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { useConsole } from "../context";
import { useAction, usePaged } from "../hooks";
import { API_KEY_SCOPES, type ApiKey, type ApiKeyScope } from "../types";
import { Ago, ConfirmedButton, Creator, Empty, ErrorNote, Field, Loading, MoreButton, Page } from "./common";

const PAGE_SIZE = 50;

export function ApiKeysPage() {
  const { api, me } = useConsole();
  const [version, setVersion] = useState(0);
  const list = usePaged<ApiKey, string>(`api-keys|${version}`, async (cursor) => {
    const page = await api.call((client) =>
      client.GET("/v1/api-keys", { params: { query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } } }),
    );
    return { rows: page.data, next: page.next_cursor };
  });
  const changed = () => {
    setVersion((n) => n + 1);
    me.refreshKeyNames();
  };
  if (!me.powers.tenantAdmin) {
    return (
      <Page title="API keys">
        <ErrorNote message="Managing API keys needs the scope tenant:admin." />
      </Page>
    );
  }
  return (
    <Page
      title="API keys"
      subtitle={
        <>
          Keys your backends use for tenant <strong>{me.tenant.tenant_id}</strong>. A key's secret is shown once, when it is made.
        </>
      }
    >
      <div class="admin-grid">
        <CreateKey onCreated={changed} />
        <section class="panel" aria-labelledby="keys-title">
          <h2 id="keys-title">Keys, newest first</h2>
          {list.rows.length === 0 && list.error ? (
            <ErrorNote message={list.error} retry={list.reload} />
          ) : list.rows.length === 0 && list.loading ? (
            <Loading what="API keys" />
          ) : list.rows.length === 0 ? (
            <Empty>
              <p>No API keys yet.</p>
            </Empty>
          ) : (
            <KeyTable rows={list.rows} onRevoked={changed} />
          )}
          <MoreButton list={list} label="More keys" />
        </section>
      </div>
    </Page>
  );
}

function standing(key: ApiKey, now: number): "active" | "revoked" | "expired" {
  if (key.revoked_at) return "revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= now) return "expired";
  return "active";
}

function KeyTable(props: { rows: ApiKey[]; onRevoked(): void }) {
  const { api } = useConsole();
  const now = Date.now();
  return (
    <table class="api-keys responsive">
      <caption class="visually-hidden">API keys, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created by</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">State</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((key) => {
          const state = standing(key, now);
          return (
            <tr key={key.id} data-key={key.id}>
              <th scope="row" data-label="Name">
                {key.name}
                <code class="id">{key.id}</code>
              </th>
              <td data-label="Scopes">{key.scopes.join(", ")}</td>
              <td data-label="Created by">
                <Creator subject={key.created_by} />
              </td>
              <td data-label="Created">
                <Ago iso={key.created_at} />
              </td>
              <td data-label="Last used">{key.last_used_at ? <Ago iso={key.last_used_at} /> : <span class="muted">never</span>}</td>
              <td data-label="Expires">{key.expires_at ? <Ago iso={key.expires_at} /> : <span class="muted">never</span>}</td>
              <td data-label="State">
                <span class={`standing standing-${state}`}>{state}</span>
              </td>
              <td data-label="Actions">
                {state !== "revoked" && (
                  <ConfirmedButton
                    label="Revoke…"
                    ariaLabel={`Revoke ${key.name}`}
                    title={`Revoke the key ${key.name}?`}
                    confirmLabel="Revoke"
                    run={() => api.call((client) => client.DELETE("/v1/api-keys/{key_id}", { params: { path: { key_id: key.id } } }))}
                    onDone={props.onRevoked}
                  >
                    <p>
                      Requests with it get 401 at once and its open event streams close. Schedules bound to it stop for good. This cannot be
                      undone.
                    </p>
                  </ConfirmedButton>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function CreateKey(props: { onCreated(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiKeyScope[]>(["sessions:read", "sessions:write"]);
  const [expires, setExpires] = useState("");
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(null);
    if (name.trim() === "") return setProblem("Name the key: who or what uses it.");
    if (scopes.length === 0) return setProblem("Give the key at least one scope.");
    const expiresAt = expires ? new Date(expires).toISOString() : null;
    await action.run(async () => {
      const answer = await api.call((client) =>
        client.POST("/v1/api-keys", { body: { name: name.trim(), scopes, expires_at: expiresAt } }),
      );
      setCreated({ name: answer.name, key: answer.key });
      setName("");
      setExpires("");
      props.onCreated();
    });
  };
  const toggle = (scope: ApiKeyScope, on: boolean) => setScopes((list) => (on ? [...list, scope] : list.filter((s) => s !== scope)));
  const error = problem ?? action.error;

  if (created) return <OneTimeSecret name={created.name} secret={created.key} onDone={() => setCreated(null)} />;
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="new-key-title">
      <h2 id="new-key-title">New key</h2>
      <Field id="key-name" label="Name">
        <input
          id="key-name"
          value={name}
          maxLength={100}
          aria-invalid={problem && name.trim() === "" ? "true" : undefined}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </Field>
      <fieldset class="field">
        <legend>Scopes</legend>
        {API_KEY_SCOPES.map((scope) => (
          <label key={scope} class="check">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) => toggle(scope, (e.target as HTMLInputElement).checked)}
            />{" "}
            {scope}
          </label>
        ))}
      </fieldset>
      <Field id="key-expires" label="Expires (optional)">
        <input id="key-expires" type="datetime-local" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} />
      </Field>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Creating…" : "Create key"}
        </button>
      </div>
    </form>
  );
}

/** The new key, once: the field takes the focus with the secret selected, ready to copy. */
function OneTimeSecret(props: { name: string; secret: string; onDone(): void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied(true);
    } catch {
      field.current?.select();
    }
  };
  return (
    <section class="panel one-time" aria-labelledby="secret-title">
      <h2 id="secret-title">Key {props.name} made</h2>
      <p role="status">Copy it now: it is shown only this once, and only its hash is stored.</p>
      <Field id="new-key-secret" label="Secret">
        <input
          id="new-key-secret"
          ref={field}
          readOnly
          value={props.secret}
          class="secret"
          onKeyDown={(e) => e.key === "Escape" && props.onDone()}
        />
      </Field>
      <div class="actions">
        <button type="button" onClick={copy}>
          {copied ? "Copied" : "Copy"}
        </button>
        <button type="button" class="primary" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
