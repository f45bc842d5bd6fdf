/**
 * The typed client of a tenant's vault for the gateway: each answer becomes its value or its
 * problem, in one switch (`vaultProblem`).
 */
import type { AuditContext } from "../audit/types";
import type { Env } from "../env";
import { vaultStub } from "../objects";
import { ApiError } from "../problems";
import type { Credential, PutCredential, VaultFailure, VaultResult } from "./types";

export const CREDENTIAL_NOT_FOUND = "No such credential.";

export function vaultProblem(failure: VaultFailure): ApiError {
  switch (failure.reason) {
    case "vault_unavailable":
      return new ApiError("vault_unavailable");
    case "credential_not_found":
      return new ApiError("not_found", CREDENTIAL_NOT_FOUND);
    case "limit_reached":
      return new ApiError(
        "conflict",
        failure.of === "end_user"
          ? `An end user keeps at most ${failure.max} credentials, the tenant's max_credentials_per_end_user; delete one first.`
          : `The tenant already keeps ${failure.max} credentials, its max_credentials_per_tenant; delete one first.`,
      );
  }
}

function value<T>(result: VaultResult<T>): T {
  if (result.ok) return result.value;
  throw vaultProblem(result);
}

export class VaultClient {
  readonly #stub: ReturnType<typeof vaultStub>;
  readonly #tenantId: string;

  constructor(env: Env, tenantId: string) {
    this.#stub = vaultStub(env, tenantId);
    this.#tenantId = tenantId;
  }

  async put(input: PutCredential, by: AuditContext): Promise<Credential> {
    return value((await this.#stub.put(this.#tenantId, input, by)) as VaultResult<Credential>);
  }

  async get(subject: string | null, name: string): Promise<Credential> {
    return value((await this.#stub.get(this.#tenantId, { subject, name }, Date.now())) as VaultResult<Credential>);
  }

  async list(subject: string | null): Promise<Credential[]> {
    return value((await this.#stub.list(this.#tenantId, subject, Date.now())) as VaultResult<Credential[]>);
  }

  async remove(subject: string | null, name: string, by: AuditContext): Promise<void> {
    value(await this.#stub.remove(this.#tenantId, { subject, name }, by));
  }
}
