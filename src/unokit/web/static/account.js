// Guests first, accounts when wanted (docs/accounts.md): a first visit becomes a guest
// quietly (POST /api/guest, no form), the lobby shows the player's level and XP, and
// the account panel (on /me) claims an account, logs in and out, logs out everywhere,
// changes the password, exports and deletes, each through the accounts API, with its
// errors in the page's language.
import { BASE, h } from "./dom.js";
import { _, ngettext } from "./i18n.js";
import { api } from "./net.js";
import { levelBlock, xpText } from "./xp.js";
import { standingFacts } from "./standing.js";

let me = null; // the player of this browser's session: {id, username, guest, xp, level, ...}
let seenAt = 0;

export function player() {
  return me;
}

// Make sure the browser has a session: the server answers with the session's player,
// or makes a guest (and its cookie). Quiet: without a server the game still opens, and
// a server slow to answer (its database away) holds the page back GUEST_WAIT_MS at most
// (a late answer still sets the cookie and fills the lobby in).
const GUEST_WAIT_MS = 4000;

export async function ensureGuest() {
  const call = api("/api/guest", {}).then((found) => {
    me = found;
    seenAt = 0; // its rating and coins come with GET /api/me (lobbyAccount)
    updateLobby();
    return found;
  }, () => { me = null; return null; });
  const late = new Promise((resolve) => { setTimeout(() => resolve(null), GUEST_WAIT_MS); });
  await Promise.race([call, late]);
  updateLobby();
  return me;
}

// The player again (its XP after a match): GET /api/me.
export async function refreshMe() {
  try {
    me = await api("/api/me?limit=1");
    seenAt = Date.now();
  } catch (err) {
    if (err.code === "no_session") me = null;
  }
  updateLobby();
  return me;
}

// ---------------------------------------------------------------- the lobby's corner
const lobbyEl = h("section", { class: "panel account-summary", testid: "lobby-account", "aria-labelledby": "lobby-account-title" });

function updateLobby() {
  if (!me) {
    lobbyEl.replaceChildren();
    lobbyEl.hidden = true;
    return;
  }
  lobbyEl.hidden = false;
  lobbyEl.dataset.guest = String(!!me.guest);
  lobbyEl.replaceChildren(
    h("h2", { id: "lobby-account-title" }, me.guest ? _("You play as a guest") : _("Signed in as {name}", { name: me.username })),
    levelBlock(me, "lobby-level"),
    ...standingFacts(me),
    h("p", {}, h("a", { href: BASE + "/me", testid: "profile-link" },
      me.guest ? _("Your matches, and an account to keep them") : _("Your profile, matches and account"))));
}

// The lobby's view of the player (the same element each time; refreshed when older
// than a few seconds, so XP won after a match shows on the way back).
export function lobbyAccount() {
  if (me && Date.now() - seenAt > 5000) { // a new guest's rating and coins too
    seenAt = Date.now();
    refreshMe();
  }
  updateLobby();
  return lobbyEl;
}

// ---------------------------------------------------------------- errors in words
export function accountError(code, message) {
  switch (code) {
    case "bad_login": return _("Wrong username or password.");
    case "forbidden": return _("The password is wrong.");
    case "name_taken": return _("That username is taken: choose another.");
    case "not_guest": return _("This player has an account already.");
    case "no_session": return _("You are not signed in: reload the page to play as a guest.");
    case "not_found": return _("There is no such player.");
    case "rate_limited": return _("Too many tries: wait a minute, then try again.");
    case "busy": return _("The server is busy: try again in a few seconds.");
    case "unavailable": return _("The server cannot reach its database: try again in a few seconds.");
    case "banned": return _("This name or address is not allowed here.");
    case "offline": return _("The server cannot be reached: check the connection.");
    default: return message || code; // bad_request: the server's message names the field
  }
}

// ---------------------------------------------------------------- the account panel
// `done(what)` is called after a change ("claimed", "login", "logout", ...), so the
// page can load the player again.
// The last outcome stays across rebuilds of the panel (the page rebuilds it after a change).
const outcome = { text: "", error: null };

export function accountPanel(profile, done) {
  const status = h("p", { class: "account-status", testid: "account-status", role: "status" }, outcome.text);
  const error = h("p", { class: "account-error", testid: "account-error", role: "alert", hidden: !outcome.error,
    data: { code: outcome.error ? outcome.error.code || "error" : null } },
  outcome.error ? accountError(outcome.error.code, outcome.error.message) : "");
  const busy = new Set();

  function fail(err) {
    outcome.text = "";
    outcome.error = { code: err.code, message: err.message };
    status.textContent = "";
    error.hidden = false;
    error.dataset.code = err.code || "error";
    error.textContent = accountError(err.code, err.message);
  }

  function ok(text) {
    outcome.text = text;
    outcome.error = null;
    error.hidden = true;
    error.textContent = "";
    delete error.dataset.code;
    status.textContent = text;
  }

  // a form whose submit calls `work(values)`; the button waits while it runs
  function form(id, title, fields, button, work, extra = null) {
    const inputs = fields.map(([name, label, type, autocomplete]) =>
      h("div", { class: "field" }, h("label", { for: id + "-" + name }, label),
        h("input", { id: id + "-" + name, name, type, autocomplete, testid: id + "-" + name, required: true,
          maxlength: type === "password" ? "256" : "20" })));
    const submit = h("button", { class: "primary", type: "submit", testid: id + "-submit" }, button);
    return h("form", {
      class: "account-form", testid: id, "aria-labelledby": id + "-title",
      onsubmit: async (ev) => {
        ev.preventDefault();
        if (busy.has(id)) return;
        const values = Object.fromEntries(new FormData(ev.target).entries());
        busy.add(id);
        submit.disabled = true;
        try {
          await work(values);
        } catch (err) {
          fail(err);
        } finally {
          busy.delete(id);
          submit.disabled = false;
        }
      },
    }, h("h3", { id: id + "-title" }, title), extra, inputs, submit);
  }

  async function fresh(what, text) {
    ok(text);
    await done(what);
  }

  const claim = form("claim", _("Claim an account"), [
    ["username", _("Username"), "text", "username"], ["password", _("Password"), "password", "new-password"]],
  _("Claim"), async (v) => {
    await api("/api/account/claim", { username: v.username, password: v.password });
    await fresh("claimed", _("Your account is ready: your matches and XP are in it."));
  }, h("p", { class: "muted" }, _("Keep your matches and XP, and play on any device. 3-20 letters, digits, _ or -; a password of 8 characters or more.")));

  const login = form("login", _("Log in"), [
    ["username", _("Username"), "text", "username"], ["password", _("Password"), "password", "current-password"]],
  _("Log in"), async (v) => {
    await api("/api/account/login", { username: v.username, password: v.password });
    await fresh("login", _("You are signed in."));
  }, h("p", { class: "muted" }, _("Logging in here ends this guest's session.")));

  const password = form("password", _("Change the password"), [
    ["password", _("Current password"), "password", "current-password"], ["new_password", _("New password"), "password", "new-password"]],
  _("Change the password"), async (v) => {
    await api("/api/account/password", { password: v.password, new_password: v.new_password });
    ok(_("The password is changed. Your other devices are signed out."));
  });

  async function guestAgain(what, text) {
    await ensureGuest();
    await fresh(what, text);
  }

  const logoutButtons = h("div", { class: "row" },
    h("button", { type: "button", class: "secondary", testid: "logout", onclick: async () => {
      try { await api("/api/account/logout", {}); await guestAgain("logout", _("You are signed out: you play as a new guest.")); } catch (err) { fail(err); }
    } }, _("Log out")),
    h("button", { type: "button", class: "secondary", testid: "logout-all", onclick: async () => {
      try {
        const answer = await api("/api/account/logout-all", {});
        await guestAgain("logout", ngettext("Signed out on every device ({n} session).", "Signed out on every device ({n} sessions).", answer.ended));
      } catch (err) { fail(err); }
    } }, _("Log out everywhere")));

  const exportLink = h("p", {}, h("a", { href: BASE + "/api/account/export", download: "unokit-export.json", testid: "export-link" },
    _("Download everything stored about you (JSON)")));

  const deleteFields = profile.guest ? [] : [["password", _("Password"), "password", "current-password"]];
  const remove = form("delete", _("Delete this player"), deleteFields, _("Delete for good"), async (v) => {
    await api("/api/account/delete", profile.guest ? {} : { password: v.password });
    await guestAgain("deleted", _("The player is deleted, with its matches and XP."));
  }, [h("p", { class: "muted" }, _("This removes the player, its sessions, matches and XP. It cannot be undone.")),
    h("div", { class: "check" },
      h("input", { type: "checkbox", id: "delete-sure", name: "sure", testid: "delete-sure", required: true }),
      h("label", { for: "delete-sure" }, _("Yes, delete this player")))]);
  remove.querySelector("button").className = "danger";

  const forms = profile.guest ? [claim, login, exportLink, remove] : [logoutButtons, password, exportLink, remove];
  return h("section", { class: "panel account-panel", testid: "account-panel", data: { guest: !!profile.guest }, "aria-labelledby": "account-title" },
    h("h2", { id: "account-title" }, _("Account")),
    h("p", {}, profile.guest ? _("You play as a guest: your matches and XP are kept in this browser's session.")
      : _("Signed in as {name}", { name: profile.username })),
    status, error, forms);
}

export { xpText };
