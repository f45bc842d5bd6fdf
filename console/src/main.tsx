/** The console's entry: one Auth and one API client for the tab, and the app mounted in `#app`. */
import { render } from "preact";
import { Api } from "./api";
import { App } from "./app";
import { Auth } from "./auth/auth";
import "./console.css";

function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    // Storage disabled: the console still works, it only forgets the sign-in on reload.
    return null;
  }
}

const baseUrl = window.location.origin;
const auth = new Auth(baseUrl, tabStorage());
const api = new Api(auth, baseUrl);
const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App auth={auth} api={api} baseUrl={baseUrl} />, root);
}
