/**
 * The console's shell: the sign-in form until there is a credential, then the header, the
 * navigation and the view the address names. Who is signed in comes from the credential's
 * claims (scopes, subject) and from `GET /v1/tenant` (the tenant itself).
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import type { Api } from "./api";
import type { Auth, AuthState } from "./auth/auth";
import { powersOf } from "./auth/claims";
import { Console, type ConsoleContext } from "./context";
import { unconditional, usePoll, useThrottle } from "./hooks";
import { type KeyNames, readKeyNames } from "./key-names";
import { lazyView } from "./lazy";
import { HOME, NO_AUDIT_FILTER, parseRoute, type Route, routeHref, USAGE_DAYS } from "./route";
import { ErrorNote, Loading, Page } from "./views/common";
import { SessionPage } from "./views/session";
import { SessionsPage } from "./views/sessions";
import { SignIn } from "./views/sign-in";

// The sessions are what a console opens on; every other page is a chunk loaded when first opened.
const AgentsPage = lazyView("Agents", () => import("./views/agents").then((m) => m.AgentsPage));
const AgentPage = lazyView("Agent", () => import("./views/agent").then((m) => m.AgentPage));
const MemoryPage = lazyView("Memory", () => import("./views/memory").then((m) => m.MemoryPage));
const MemoryItemPage = lazyView("Memory item", () => import("./views/memory-item").then((m) => m.MemoryItemPage));
const TenantsPage = lazyView("Tenants", () => import("./views/tenants").then((m) => m.TenantsPage));
const TenantPage = lazyView("Tenant", () => import("./views/tenant").then((m) => m.TenantPage));
const NewSessionPage = lazyView("New session", () => import("./views/new-session").then((m) => m.NewSessionPage));
const CredentialsPage = lazyView("Credentials", () => import("./views/credentials").then((m) => m.CredentialsPage));
const ApiKeysPage = lazyView("API keys", () => import("./views/api-keys").then((m) => m.ApiKeysPage));
const WebhooksPage = lazyView("Webhooks", () => import("./views/webhooks").then((m) => m.WebhooksPage));
const WebhookPage = lazyView("Webhook", () => import("./views/webhook").then((m) => m.WebhookPage));
const SchedulesPage = lazyView("Schedules", () => import("./views/schedules").then((m) => m.SchedulesPage));
const SchedulePage = lazyView("Schedule", () => import("./views/schedule").then((m) => m.SchedulePage));
const EvalsPage = lazyView("Evals", () => import("./views/evals").then((m) => m.EvalsPage));
const EvalPage = lazyView("Eval", () => import("./views/eval").then((m) => m.EvalPage));
const EvalComparePage = lazyView("Eval comparison", () => import("./views/eval-compare").then((m) => m.EvalComparePage));
const DatasetPage = lazyView("Dataset", () => import("./views/dataset").then((m) => m.DatasetPage));
const SettingsPage = lazyView("Settings", () => import("./views/settings").then((m) => m.SettingsPage));
const UsagePage = lazyView("Usage", () => import("./views/usage").then((m) => m.UsagePage));
const AuditLogPage = lazyView("Audit log", () => import("./views/audit-log").then((m) => m.AuditLogPage));

/** The tenant's counts and usage move as sessions run; the lists poll faster on their own. */
const TENANT_POLL_MS = 15_000;
const COUNTS_REFRESH_MS = 3_000;
/** Keys are named when they are made: a new one shows by name within this long (at once when made here). */
const KEY_NAMES_POLL_MS = 60_000;
const NO_NAMES: KeyNames = {};
const UNKNOWN_KEY_REFRESH_MS = 5_000;

interface AppProps {
  auth: Auth;
  api: Api;
  baseUrl: string;
}

export function App(props: AppProps) {
  const state = useAuthState(props.auth);
  if (!state.signedIn) return <SignIn auth={props.auth} reason={state.reason} />;
  return <SignedIn {...props} state={state} />;
}

function SignedIn(props: AppProps & { state: AuthState }) {
  const route = useRoute();
  const tenant = usePoll("tenant", () => unconditional(props.api.call((client) => client.GET("/v1/tenant"))), TENANT_POLL_MS);
  const claims = props.state.claims;
  // Lists ask for fresh counts whenever their page changes; a busy tenant's then come every few seconds, not every poll.
  const refreshTenant = useThrottle(tenant.refresh, COUNTS_REFRESH_MS);
  const powers = useMemo(() => powersOf(claims?.scopes ?? []), [claims]);
  const keyNames = usePoll(
    `key-names|${powers.tenantAdmin}`,
    () => unconditional(powers.tenantAdmin ? readKeyNames(props.api) : Promise.resolve(NO_NAMES)),
    KEY_NAMES_POLL_MS,
  );
  const names = keyNames.data ?? NO_NAMES;
  const noteUnknownKey = useThrottle(keyNames.refresh, UNKNOWN_KEY_REFRESH_MS);
  const context: ConsoleContext | null = useMemo(
    () =>
      tenant.data
        ? {
            auth: props.auth,
            api: props.api,
            baseUrl: props.baseUrl,
            me: {
              subject: claims?.subject ?? null,
              powers,
              tenant: tenant.data,
              refreshTenant,
              keyNames: names,
              refreshKeyNames: keyNames.refresh,
              noteUnknownKey,
            },
          }
        : null,
    [tenant.data, refreshTenant, claims, powers, names, keyNames.refresh, noteUnknownKey, props.auth, props.api, props.baseUrl],
  );

  let main;
  if (!context && tenant.error) main = <ErrorNote message={tenant.error} retry={tenant.refresh} />;
  else if (!context) main = <Loading what="your tenant" />;
  else main = <View route={route} />;

  return (
    <>
      <a class="skip" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={routeHref(HOME)}>
          Agent Platform
        </a>
        <nav aria-label="Main">
          <a
            href={routeHref(HOME)}
            aria-current={route.view === "sessions" || route.view === "session" || route.view === "new_session" ? "page" : undefined}
          >
            Sessions
          </a>
          {powers.read && (
            <a
              href={routeHref({ view: "agents", name: null, includeArchived: false, cursor: null })}
              aria-current={route.view === "agents" || route.view === "agent" ? "page" : undefined}
            >
              Agents
            </a>
          )}
          {powers.memoryRead && (
            <a
              href={routeHref({ view: "memory", namespace: [], query: null, key: null })}
              aria-current={route.view === "memory" ? "page" : undefined}
            >
              Memory
            </a>
          )}
          {powers.read && (
            <a
              href={routeHref({ view: "schedules" })}
              aria-current={route.view === "schedules" || route.view === "schedule" ? "page" : undefined}
            >
              Schedules
            </a>
          )}
          {powers.read && (
            <a
              href={routeHref({ view: "evals" })}
              aria-current={["evals", "eval", "dataset", "eval_compare"].includes(route.view) ? "page" : undefined}
            >
              Evals
            </a>
          )}
          {powers.tenantAdmin && (
            <a
              href={routeHref({ view: "webhooks" })}
              aria-current={route.view === "webhooks" || route.view === "webhook" ? "page" : undefined}
            >
              Webhooks
            </a>
          )}
          {powers.tenantAdmin && (
            <a href={routeHref({ view: "api_keys" })} aria-current={route.view === "api_keys" ? "page" : undefined}>
              API keys
            </a>
          )}
          {powers.tenantAdmin && (
            <a href={routeHref({ view: "credentials", subject: null })} aria-current={route.view === "credentials" ? "page" : undefined}>
              Credentials
            </a>
          )}
          {powers.tenantAdmin && (
            <a href={routeHref({ view: "settings" })} aria-current={route.view === "settings" ? "page" : undefined}>
              Settings
            </a>
          )}
          {powers.tenantAdmin && (
            <a href={routeHref({ view: "usage", days: USAGE_DAYS })} aria-current={route.view === "usage" ? "page" : undefined}>
              Usage
            </a>
          )}
          {powers.tenantAdmin && (
            <a
              href={routeHref({ view: "audit_log", scope: "tenant", ...NO_AUDIT_FILTER })}
              aria-current={route.view === "audit_log" && route.scope === "tenant" ? "page" : undefined}
            >
              Audit log
            </a>
          )}
          {powers.platformAdmin && (
            <a
              href={routeHref({ view: "tenants", cursor: null })}
              aria-current={
                route.view === "tenants" || route.view === "tenant" || (route.view === "audit_log" && route.scope === "platform")
                  ? "page"
                  : undefined
              }
            >
              Tenants
            </a>
          )}
        </nav>
        <div class="who">
          <span>
            {claims?.subject ?? "signed in"}
            {tenant.data && <> · {tenant.data.tenant_id}</>}
            {tenant.data?.suspended && <strong class="warn"> (suspended)</strong>}
          </span>
          <button type="button" onClick={() => props.auth.signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">{context ? <Console.Provider value={context}>{main}</Console.Provider> : main}</main>
    </>
  );
}

function View(props: { route: Route }) {
  const { route } = props;
  switch (route.view) {
    case "sessions":
      return <SessionsPage filter={route} />;
    case "session":
      return <SessionPage key={route.id} id={route.id} />;
    case "agents":
      return <AgentsPage filter={route} />;
    case "agent":
      return <AgentPage key={route.id} id={route.id} from={route.from} to={route.to} />;
    case "memory":
      return route.key === null ? (
        <MemoryPage namespace={route.namespace} query={route.query} />
      ) : (
        <MemoryItemPage key={`${route.namespace.join(".")}/${route.key}`} namespace={route.namespace} itemKey={route.key} />
      );
    case "usage":
      return <UsagePage key={route.days} days={route.days} />;
    case "tenants":
      return <TenantsPage cursor={route.cursor} />;
    case "tenant":
      return <TenantPage key={route.tenantId} tenantId={route.tenantId} filter={route} />;
    case "new_session":
      return <NewSessionPage />;
    case "api_keys":
      return <ApiKeysPage />;
    case "credentials":
      return <CredentialsPage subject={route.subject} />;
    case "webhooks":
      return <WebhooksPage />;
    case "webhook":
      return <WebhookPage key={route.id} id={route.id} />;
    case "schedules":
      return <SchedulesPage />;
    case "schedule":
      return <SchedulePage key={route.id} id={route.id} />;
    case "evals":
      return <EvalsPage />;
    case "eval":
      return <EvalPage key={route.id} id={route.id} />;
    case "dataset":
      return <DatasetPage key={route.id} id={route.id} />;
    case "eval_compare":
      return <EvalComparePage key={`${route.a}|${route.b}`} a={route.a} b={route.b} />;
    case "settings":
      return <SettingsPage />;
    case "audit_log": {
      const { view: _, scope, ...filter } = route;
      return <AuditLogPage scope={scope} filter={filter} />;
    }
    case "not_found":
      return (
        <Page title="Nothing here">
          <p>
            No view lives at <code>{route.path}</code>. <a href={routeHref(HOME)}>Go to the sessions</a>.
          </p>
        </Page>
      );
  }
}

/** The skip link moves the focus without touching the hash, which the router owns. */
function skipToMain(event: Event) {
  event.preventDefault();
  const heading = document.querySelector<HTMLElement>("main h1");
  heading?.focus();
}

function useAuthState(auth: Auth): AuthState {
  const [state, setState] = useState(auth.state);
  useEffect(() => auth.subscribe(setState), [auth]);
  return state;
}

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
