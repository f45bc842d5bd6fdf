/**
 * The credential vault (tenant admins): the tenant's own credentials or one end user's, each with
 * its type, header, origins, expiry and status; a form puts one (its secret is sent once and
 * never shown again) and a delete asks first.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { credentialBody, type CredentialForm, type CredentialType, EMPTY_CREDENTIAL_FORM } from "../credential-form";
import { useAction, usePaged } from "../hooks";
import { routeHref } from "../route";
import type { Credential } from "../types";
import { Ago, ConfirmedButton, Empty, ErrorNote, Field, Loading, Page } from "./common";

export function CredentialsPage(props: { subject: string | null }) {
  const { api, me } = useConsole();
  const [version, setVersion] = useState(0);
  const { subject } = props;
  const list = usePaged<Credential, never>(`credentials|${subject ?? ""}|${version}`, async () => {
    const page = await api.call((client) =>
      subject === null
        ? client.GET("/v1/tenant/credentials")
        : client.GET("/v1/end-users/{subject}/credentials", { params: { path: { subject } } }),
    );
    return { rows: page.data, next: null };
  });
  if (!me.powers.tenantAdmin) {
    return (
      <Page title="Credentials">
        <ErrorNote message="Managing credentials needs the scope tenant:admin." />
      </Page>
    );
  }
  const owner = subject === null ? "the tenant" : `end user ${subject}`;
  return (
    <Page
      title="Credentials"
      subtitle={<>Secrets tools send at egress, only to the origins each allows. A secret is never shown again once it is put.</>}
    >
      <OwnerPicker subject={subject} />
      <div class="admin-grid">
        <PutCredential subject={subject} onPut={() => setVersion((n) => n + 1)} />
        <section class="panel" aria-labelledby="credentials-title">
          <h2 id="credentials-title">Credentials of {owner}</h2>
          {list.rows.length === 0 && list.error ? (
            <ErrorNote message={list.error} retry={list.reload} />
          ) : list.rows.length === 0 && list.loading ? (
            <Loading what="credentials" />
          ) : list.rows.length === 0 ? (
            <Empty>
              <p>No credentials yet.</p>
            </Empty>
          ) : (
            <CredentialTable subject={subject} rows={list.rows} onDeleted={() => setVersion((n) => n + 1)} />
          )}
        </section>
      </div>
    </Page>
  );
}

/** The tenant's own, or an end user's by subject (the address keeps it). */
function OwnerPicker(props: { subject: string | null }) {
  const [text, setText] = useState(props.subject ?? "");
  const go = (event: Event) => {
    event.preventDefault();
    location.hash = routeHref({ view: "credentials", subject: text.trim() || null });
  };
  return (
    <form class="filters" onSubmit={go} aria-label="Whose credentials">
      <Field id="credentials-subject" label="End user (empty: the tenant's own)">
        <input id="credentials-subject" value={text} maxLength={128} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      </Field>
      <button type="submit">Show</button>
    </form>
  );
}

function CredentialTable(props: { subject: string | null; rows: Credential[]; onDeleted(): void }) {
  const { api } = useConsole();
  const { subject } = props;
  const remove = (name: string) =>
    api.call((client) =>
      subject === null
        ? client.DELETE("/v1/tenant/credentials/{name}", { params: { path: { name } } })
        : client.DELETE("/v1/end-users/{subject}/credentials/{name}", { params: { path: { subject, name } } }),
    );
  return (
    <table class="credentials responsive">
      <caption class="visually-hidden">Credentials by name</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
          <th scope="col">Origins</th>
          <th scope="col">Expires</th>
          <th scope="col">Status</th>
          <th scope="col">Updated</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((credential) => (
          <tr key={credential.name} data-credential={credential.name}>
            <th scope="row" data-label="Name">
              {credential.name}
            </th>
            <td data-label="Type">
              {credential.type} <code>{credential.header}</code>
            </td>
            <td data-label="Origins">{credential.allowed_origins.join(", ")}</td>
            <td data-label="Expires">{credential.expires_at ? <Ago iso={credential.expires_at} /> : <span class="muted">never</span>}</td>
            <td data-label="Status">
              <span class={`standing standing-${credential.status === "ok" ? "active" : "expired"}`}>{credential.status}</span>
            </td>
            <td data-label="Updated">
              <Ago iso={credential.updated_at} />
            </td>
            <td data-label="Actions">
              <ConfirmedButton
                label="Delete…"
                ariaLabel={`Delete ${credential.name}`}
                title={`Delete the credential ${credential.name}?`}
                confirmLabel="Delete"
                run={() => remove(credential.name)}
                onDone={props.onDeleted}
              >
                <p>Its secret is erased at once; tools naming it get credential_missing until it is put again.</p>
              </ConfirmedButton>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function PutCredential(props: { subject: string | null; onPut(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [name, setName] = useState("");
  const [form, setForm] = useState<CredentialForm>(EMPTY_CREDENTIAL_FORM);
  const set = (field: keyof CredentialForm) => (e: Event) => setForm({ ...form, [field]: (e.target as HTMLInputElement).value });
  const { subject } = props;

  const submit = async (event: Event) => {
    event.preventDefault();
    const body = credentialBody(form);
    await action.run(async () => {
      await api.call((client) =>
        subject === null
          ? client.PUT("/v1/tenant/credentials/{name}", { params: { path: { name } }, body })
          : client.PUT("/v1/end-users/{subject}/credentials/{name}", { params: { path: { subject, name } }, body }),
      );
      // The secrets leave the page with the request.
      setForm({ ...EMPTY_CREDENTIAL_FORM, type: form.type });
      setName("");
      props.onPut();
    });
  };
  const secret = (id: keyof CredentialForm, label: string) => (
    <Field id={`credential-${id}`} label={label}>
      <input id={`credential-${id}`} type="password" autoComplete="off" value={form[id]} onInput={set(id)} />
    </Field>
  );
  const text = (id: keyof CredentialForm, label: string) => (
    <Field id={`credential-${id}`} label={label}>
      <input id={`credential-${id}`} value={form[id]} onInput={set(id)} />
    </Field>
  );
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="put-credential-title">
      <h2 id="put-credential-title">Put a credential</h2>
      <Field id="credential-name" label="Name">
        <input id="credential-name" value={name} maxLength={64} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </Field>
      <Field id="credential-type" label="Type">
        <select
          id="credential-type"
          value={form.type}
          onChange={(e) => setForm({ ...form, type: (e.target as HTMLSelectElement).value as CredentialType })}
        >
          <option value="bearer">bearer</option>
          <option value="header">header</option>
          <option value="oauth2">oauth2</option>
        </select>
      </Field>
      {form.type === "header" && text("header", "Header")}
      {form.type !== "oauth2" && secret("value", form.type === "bearer" ? "Token" : "Value")}
      {form.type === "oauth2" && (
        <>
          {secret("accessToken", "Access token")}
          {secret("refreshToken", "Refresh token (optional)")}
          <Field id="credential-expiresAt" label="Expires (optional)">
            <input id="credential-expiresAt" type="datetime-local" value={form.expiresAt} onInput={set("expiresAt")} />
          </Field>
          {text("tokenUrl", "Token URL (with a refresh token)")}
          {text("clientId", "Client id (optional)")}
          {secret("clientSecret", "Client secret (optional)")}
        </>
      )}
      <Field id="credential-origins" label="Allowed origins, one a line">
        <textarea id="credential-origins" rows={3} value={form.origins} onInput={set("origins")} />
      </Field>
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Saving…" : "Put credential"}
        </button>
      </div>
    </form>
  );
}
