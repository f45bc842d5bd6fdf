/** The sign-in form: an API key (exchanged for a short-lived token) or a token, for this tab only. */
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "../api";
import type { Auth, SignedOutReason } from "../auth/auth";

const REASONS: Record<SignedOutReason, string | null> = {
  signed_out: null,
  expired: "Your sign-in expired. Sign in again to go on where you were.",
  refused: "The platform refused the credential (revoked, expired or not valid here). Sign in again.",
};

export function SignIn(props: { auth: Auth; reason: SignedOutReason }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    document.title = "Sign in · Agent Platform console";
    input.current?.focus();
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (pending) return;
    setPending(true);
    setError(null);
    try {
      await props.auth.signIn(value);
      setValue("");
    } catch (failure) {
      setError(describeError(failure));
      input.current?.focus();
    } finally {
      setPending(false);
    }
  };

  const notice = REASONS[props.reason];
  return (
    <main class="sign-in" id="main">
      <form onSubmit={submit} aria-labelledby="sign-in-title" aria-describedby="sign-in-help">
        <h1 id="sign-in-title">Agent Platform console</h1>
        {notice && (
          <p class="notice" role="status">
            {notice}
          </p>
        )}
        <label for="credential">API key or token</label>
        <input
          id="credential"
          ref={input}
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          value={value}
          onInput={(event) => setValue((event.target as HTMLInputElement).value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "sign-in-error" : undefined}
        />
        {error && (
          <p id="sign-in-error" class="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={pending}>
          {pending ? "Signing in…" : "Sign in"}
        </button>
        <p id="sign-in-help" class="help">
          An API key (<code>ak_…</code>) is exchanged for a 15-minute token, renewed while this tab is open; the key itself is kept in
          memory only. A token (a JWT) is used until it expires. Either is forgotten when the tab closes.
        </p>
      </form>
    </main>
  );
}
