/**
 * The vault credentials one unit of a session's work uses (src/vault/source.ts): the session's
 * end user's (from `created_by` `end_user:<subject>`), else the tenant's. A lookup is asked once
 * per unit; every value handed out is remembered so that what a tool brings back (a server that
 * echoes the token, an error quoting a header) is masked before it is stored or shown to a model.
 */
import type { CredentialLookup, CredentialRequired, CredentialSource } from "../../../egress/credentials";
import type { CredentialFailure } from "../../../egress/credential-fetch";
import { endUserOf } from "../../../auth/principal";
import { headerSecrets } from "../../../session-config/masking";
import { maskerOf, type SecretMasker } from "../../../shared/secret-mask";
import { vaultCredentialSource } from "../../../vault/source";

export class UnitCredentials implements CredentialSource {
  readonly #lookups = new Map<string, Promise<CredentialLookup>>();
  readonly #values = new Set<string>();

  constructor(
    private readonly source: CredentialSource,
    readonly subject: string | null,
  ) {}

  static forSession(env: Cloudflare.Env, session: { tenant_id: string; created_by: string }): UnitCredentials {
    const subject = endUserOf(session.created_by);
    return new UnitCredentials(vaultCredentialSource(env, session.tenant_id, subject), subject);
  }

  get(name: string): Promise<CredentialLookup> {
    let lookup = this.#lookups.get(name);
    if (!lookup) {
      lookup = this.#remember(this.source.get(name));
      this.#lookups.set(name, lookup);
      // A vault that could not be reached is asked again by the next request.
      lookup.catch(() => this.#lookups.delete(name));
    }
    return lookup;
  }

  refresh(name: string, rejected: string): Promise<CredentialLookup> {
    const lookup = this.#remember(this.source.refresh(name, rejected));
    this.#lookups.set(name, lookup);
    lookup.catch(() => this.#lookups.delete(name));
    return lookup;
  }

  /** Masks every credential value this unit handed out, in any encoding the masker knows. */
  masker(): SecretMasker {
    return maskerOf([...this.#values].flatMap((value) => headerSecrets({ value })));
  }

  /** What the session tells its backend about a credential a call could not use. */
  required(failure: CredentialFailure): CredentialRequired {
    const owner = failure.owner ?? (this.subject === null ? "tenant" : "end_user");
    return {
      credential: failure.name,
      owner,
      ...(owner === "end_user" && this.subject !== null ? { subject: this.subject } : {}),
      code: failure.code,
    };
  }

  async #remember(lookup: Promise<CredentialLookup>): Promise<CredentialLookup> {
    const answer = await lookup;
    if (answer.ok && !this.#values.has(answer.credential.value)) {
      this.#values.add(answer.credential.value);
      // Made at once, so the isolate's log masking knows the value before any line could quote it.
      maskerOf(headerSecrets({ value: answer.credential.value }));
    }
    return answer;
  }
}
