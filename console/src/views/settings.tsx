/**
 * The tenant's own settings (tenant admins): the origins webhook tools and notify URLs may use,
 * what is redacted (redaction-form.tsx), and the secret that signs webhook calls (shown on
 * request, rotated after a question). Settings are replaced as a whole, so a save sends back every setting it read, changed or not.
 */
import { useState } from "preact/hooks";
import { useConsole } from "../context";
import { unconditional, useAction, usePoll } from "../hooks";
import type { TenantSettings } from "../types";
import { Ago, ConfirmedButton, ErrorNote, Field, Loading, Page } from "./common";
import { RedactionForm } from "./redaction-form";
import { ToolPolicyPanel } from "./tool-policy";

export function SettingsPage() {
  const { api, me } = useConsole();
  const settings = usePoll<TenantSettings>(
    "tenant-settings",
    () => unconditional(api.call((client) => client.GET("/v1/tenant/settings"))),
    null,
  );
  // Kept here: the form is made afresh from the settings read again after a save, and "Saved." outlives that.
  const [saved, setSaved] = useState(false);
  const [redactionSaved, setRedactionSaved] = useState(false);
  if (!me.powers.tenantAdmin) {
    return (
      <Page title="Settings">
        <ErrorNote message="Tenant settings need the scope tenant:admin." />
      </Page>
    );
  }
  return (
    <Page
      title="Settings"
      subtitle={
        <>
          Tenant <strong>{me.tenant.tenant_id}</strong>
        </>
      }
    >
      <div class="admin-grid">
        {settings.data && (
          <RedactionForm
            key={`redaction|${JSON.stringify(settings.data)}`}
            settings={settings.data}
            saved={redactionSaved}
            onEdited={() => setRedactionSaved(false)}
            onSaved={() => {
              setRedactionSaved(true);
              settings.refresh();
            }}
          />
        )}
        {settings.data ? (
          <OriginsForm
            key={JSON.stringify(settings.data)}
            settings={settings.data}
            saved={saved}
            onEdited={() => setSaved(false)}
            onSaved={() => {
              setSaved(true);
              settings.refresh();
            }}
          />
        ) : settings.error ? (
          <ErrorNote message={settings.error} retry={settings.refresh} />
        ) : (
          <Loading what="the settings" />
        )}
        <SigningSecret />
        <ToolPolicyPanel />
      </div>
    </Page>
  );
}

function OriginsForm(props: { settings: TenantSettings; saved: boolean; onEdited(): void; onSaved(): void }) {
  const { api } = useConsole();
  const action = useAction();
  const [text, setText] = useState((props.settings.webhook_origins ?? []).join("\n"));
  const submit = async (event: Event) => {
    event.preventDefault();
    props.onEdited();
    const origins = text
      .split(/\s+/)
      .map((line) => line.trim())
      .filter(Boolean);
    const body = { ...props.settings, webhook_origins: origins.length > 0 ? origins : null };
    if (await action.run(() => api.call((client) => client.PUT("/v1/tenant/settings", { body })))) props.onSaved();
  };
  return (
    <form class="panel" onSubmit={submit} aria-labelledby="origins-title">
      <h2 id="origins-title">Webhook origins</h2>
      <Field id="webhook-origins" label="Allowed origins, one per line">
        <textarea
          id="webhook-origins"
          rows={4}
          value={text}
          placeholder="https://hooks.example.com"
          aria-describedby="webhook-origins-help"
          onInput={(e) => {
            props.onEdited();
            setText((e.target as HTMLTextAreaElement).value);
          }}
        />
        <p id="webhook-origins-help" class="muted">
          When set, webhook tools, status webhooks and notify URLs must use one of these. Empty: any public https origin.
        </p>
      </Field>
      {action.error && (
        <p class="form-error" role="alert">
          {action.error}
        </p>
      )}
      {props.saved && (
        <p class="result" role="status">
          Saved.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.pending}>
          {action.pending ? "Saving…" : "Save origins"}
        </button>
      </div>
    </form>
  );
}

function SigningSecret() {
  const { api } = useConsole();
  const [shown, setShown] = useState(false);
  const secret = usePoll(
    `webhook-secret|${shown}`,
    () => unconditional(shown ? api.call((client) => client.GET("/v1/tenant/webhook-secret")) : Promise.resolve(null)),
    null,
  );
  return (
    <section class="panel" aria-labelledby="secret-title">
      <h2 id="secret-title">Webhook signing secret</h2>
      <p class="muted">Webhook tool calls and status notifications are signed with it (X-Webhook-Signature).</p>
      {shown && secret.data ? (
        <dl class="facts">
          <dt>Secret</dt>
          <dd>
            <code class="secret">{secret.data.secret}</code>
          </dd>
          <dt>Since</dt>
          <dd>
            <Ago iso={secret.data.created_at} />
          </dd>
          {secret.data.previous_expires_at && (
            <>
              <dt>Previous one valid until</dt>
              <dd>
                <Ago iso={secret.data.previous_expires_at} />
              </dd>
            </>
          )}
        </dl>
      ) : shown && secret.error ? (
        <ErrorNote message={secret.error} retry={secret.refresh} />
      ) : null}
      <div class="actions">
        <button type="button" aria-expanded={shown} onClick={() => setShown((value) => !value)}>
          {shown ? "Hide secret" : "Show secret"}
        </button>
        <ConfirmedButton
          label="Rotate…"
          title="Rotate the signing secret?"
          confirmLabel="Rotate"
          run={() => api.call((client) => client.POST("/v1/tenant/webhook-secret"))}
          onDone={() => {
            setShown(true);
            secret.refresh();
          }}
        >
          <p>A new secret signs every call from now on; the current one also signs them for 24 hours, so receivers can switch over.</p>
        </ConfirmedButton>
      </div>
    </section>
  );
}
