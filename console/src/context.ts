/** What every view reaches: the credential, the API client, and who is signed in. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Api } from "./api";
import type { Auth } from "./auth/auth";
import type { Powers } from "./auth/claims";
import type { KeyNames } from "./key-names";
import type { Tenant } from "./types";

export interface Me {
  subject: string | null;
  powers: Powers;
  /** The signed-in tenant, as `GET /v1/tenant` answers it (limits, usage, counts by status). */
  tenant: Tenant;
  /** Reads the tenant again (its counts move as sessions run). */
  refreshTenant(): void;
  /** The tenant's API keys' names by id, for "created by"; empty for a caller who may not list keys. */
  keyNames: KeyNames;
  /** Reads the key names again (after a key is created). */
  refreshKeyNames(): void;
  /** A key's subject with no known name was shown: its key may be new, so the names are read again (at most every few seconds). */
  noteUnknownKey(): void;
}

export interface ConsoleContext {
  auth: Auth;
  api: Api;
  baseUrl: string;
  me: Me;
}

export const Console = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(Console);
  if (!value) throw new Error("useConsole outside the signed-in console");
  return value;
}
