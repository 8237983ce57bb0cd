// The challenges and the shop, on the player's own page (/me): this day's and this
// week's challenges with their progress and time left, and a Claim button for each one
// complete (POST /api/challenges/claim, which pays once however often it is pressed);
// the coins, the cosmetics to buy with them (POST /api/shop/buy) and the owned ones to
// use on the table (POST /api/shop/choose). Coins buy looks only: they never reach a
// match. Each change reads the lists again and calls `changed()` (the page reloads the
// player: the XP a reward paid).
import { h } from "./dom.js";
import { _, pgettext } from "./i18n.js";
import { api } from "./net.js";
import { accountError } from "./account.js";
import { applyCosmetics } from "./cosmetics.js";
import { coinsText, timeLeft } from "./standing.js";
import { xpText } from "./xp.js";

const R = { challenges: null, now: 0, loadedAt: 0, shop: null, status: "", error: null, busy: new Set(), changed: null };

// The panels are the same elements from one drawing of the page to the next, and only
// their insides are drawn again here (a claim, a load), so that a form elsewhere on the
// page keeps what is typed in it.
const els = {
  status: h("div", { testid: "rewards" }),
  challenges: h("section", { class: "panel", id: "challenges", testid: "challenges", "aria-labelledby": "challenges-title" }),
  shop: h("section", { class: "panel", id: "shop", testid: "shop", "aria-labelledby": "shop-title" }),
};

function redraw() {
  const active = document.activeElement;
  const id = active && active.id && Object.values(els).some((el) => el.contains(active)) ? active.id : null;
  els.status.replaceChildren(...statusKids());
  els.challenges.replaceChildren(...challengeKids());
  els.shop.replaceChildren(...shopKids());
  if (id) {
    const again = document.getElementById(id);
    if (again) again.focus({ preventScroll: true });
    else els.status.querySelector('[data-testid="rewards-status"]').focus({ preventScroll: true });
  }
}

export async function loadRewards() {
  try {
    const [list, shop] = await Promise.all([api("/api/challenges"), api("/api/shop")]);
    R.challenges = list.challenges;
    R.now = list.now;
    R.loadedAt = Date.now();
    R.shop = shop;
    applyCosmetics(shop.items);
  } catch (err) {
    R.error = { code: err.code, message: err.message };
  }
  redraw();
}

function done(text) {
  R.status = text;
  R.error = null;
}

function fail(err) {
  R.status = "";
  R.error = { code: err.code, message: err.message };
}

// Run `work` once at a time per `key`; then read the lists again and tell the page.
async function once(key, work, changed) {
  if (R.busy.has(key)) return;
  R.busy.add(key);
  redraw();
  try {
    await work();
  } catch (err) {
    fail(err);
  }
  R.busy.delete(key);
  await loadRewards();
  if (changed) await changed();
}

function rewardText(c) {
  // TRANSLATORS: a challenge's reward, e.g. "15 XP and 10 coins"
  return _("{xp} and {coins}", { xp: xpText(c.xp), coins: coinsText(c.coins) });
}

function claim(c) {
  return once("claim:" + c.id + ":" + c.ends_at, async () => {
    const paid = await api("/api/challenges/claim", { id: c.id, ends_at: c.ends_at });
    done(_("Reward paid: {reward}.", { reward: rewardText(paid) }));
  }, R.changed);
}

function challengeItem(c) {
  const now = R.now + (Date.now() - R.loadedAt) / 1000;
  const id = "challenge-" + c.id.replace(/\./g, "-") + "-" + c.ends_at;
  const busy = R.busy.has("claim:" + c.id + ":" + c.ends_at);
  return h("li", { class: "challenge" + (c.claimable ? " complete" : ""), testid: "challenge",
    data: { id: c.id, period: c.period, progress: c.progress, goal: c.goal, claimable: c.claimable, claimed: c.claimed, ends: c.ends_at } },
  h("div", { class: "challenge-head" },
    h("b", { id: id + "-title" }, c.title),
    h("span", { class: "muted small-text" }, rewardText(c))),
  h("progress", { max: String(c.goal), value: String(c.progress), "aria-labelledby": id + "-title" }),
  h("div", { class: "challenge-foot" },
    h("span", { testid: "challenge-progress" }, _("{done} of {goal}", { done: c.progress, goal: c.goal })),
    c.current ? h("span", { class: "muted small-text" }, _("ends in {time}", { time: timeLeft(c.ends_at, now) }))
      : h("span", { class: "muted small-text" }, _("an earlier period")),
    c.claimed ? h("span", { class: "tag", testid: "challenge-claimed" }, _("claimed"))
      : c.claimable ? h("button", { type: "button", class: "primary", id: id + "-claim", testid: "challenge-claim",
        "aria-describedby": id + "-title", disabled: busy ? true : null, onclick: () => claim(c) },
      busy ? _("Claiming…") : pgettext("challenge", "Claim")) : null));
}

function group(title, items, testid) {
  if (!items.length) return null;
  return h("div", { class: "challenge-group", testid },
    h("h3", {}, title),
    h("ul", { class: "challenges" }, items.map((c) => challengeItem(c))));
}

function challengeKids() {
  const list = R.challenges || [];
  return [
    h("h2", { id: "challenges-title" }, _("Challenges")),
    h("p", { class: "muted small-text" }, _("Challenges count the matches you finish (UTC days and weeks). A complete one pays its reward when you claim it.")),
    R.challenges === null && !R.error ? h("p", { class: "muted", role: "status" }, _("Loading…")) : null,
    group(_("Today"), list.filter((c) => c.current && c.period === "daily"), "challenges-daily"),
    group(_("This week"), list.filter((c) => c.current && c.period === "weekly"), "challenges-weekly"),
    group(_("Earlier, still to claim"), list.filter((c) => !c.current), "challenges-earlier"),
  ].flat().filter(Boolean);
}

// The challenges panel (drawn again in the page's language); `changed()` runs after a
// reward is paid (the page reads the player again).
export function challengesPanel(changed) {
  R.changed = changed;
  redraw();
  return els.challenges;
}

// ---------------------------------------------------------------- the shop
function slotName(slot) {
  switch (slot) {
    case "card_back": return _("Card backs");
    case "table": return _("Table colours");
    default: return slot;
  }
}

function shopItem(item, coins) {
  const key = "shop:" + item.id;
  const busy = R.busy.has(key);
  const id = "shop-" + item.id.replace(/\./g, "-");
  let action;
  if (item.chosen) {
    action = h("span", { class: "tag in-use" }, _("in use"));
  } else if (item.owned) {
    action = h("button", { type: "button", class: "secondary", id: id + "-use", testid: "shop-use", "aria-describedby": id + "-name",
      disabled: busy ? true : null, onclick: () => once(key, async () => {
        await api("/api/shop/choose", { id: item.id });
        done(_("{name} is on your table now.", { name: item.name }));
      }) }, _("Use"));
  } else {
    action = h("button", { type: "button", class: "primary", id: id + "-buy", testid: "shop-buy", "aria-describedby": id + "-name",
      disabled: busy || coins < item.price ? true : null, onclick: () => once(key, async () => {
        await api("/api/shop/buy", { id: item.id });
        done(_("You bought {name}.", { name: item.name }));
      }) }, _("Buy for {price}", { price: coinsText(item.price) }));
  }
  return h("li", { class: "shop-item", testid: "shop-item", data: { id: item.id, slot: item.slot, owned: item.owned, chosen: item.chosen, price: item.price } },
    h("span", { class: "swatch swatch-" + item.slot, "aria-hidden": "true", vars: { swatch: item.colour } }),
    h("span", { class: "shop-name" }, h("b", { id: id + "-name" }, item.name),
      h("span", { class: "muted small-text" }, item.price ? coinsText(item.price) : pgettext("the price of a free item in the shop", "free"))),
    action);
}

function shopKids() {
  const shop = R.shop;
  const coins = shop ? shop.coins : 0;
  return [
    h("h2", { id: "shop-title" }, _("Shop")),
    h("p", {}, _("Your coins:"), " ", h("b", { testid: "shop-coins", data: { coins: shop ? coins : "" } }, shop ? coinsText(coins) : "…")),
    h("p", { class: "muted small-text" }, _("Coins come from challenges. They buy looks for your table, nothing else: they never touch a match.")),
    shop ? ["card_back", "table"].map((slot) => h("div", { class: "shop-group" },
      h("h3", {}, slotName(slot)),
      h("ul", { class: "shop-items" }, shop.items.filter((item) => item.slot === slot).map((item) => shopItem(item, coins))))) : null,
  ].flat().filter(Boolean);
}

export function shopPanel() {
  return els.shop;
}

function statusKids() {
  return [
    h("p", { class: "account-status", testid: "rewards-status", role: "status", tabindex: "-1" }, R.status),
    R.error ? h("p", { class: "account-error", testid: "rewards-error", role: "alert", data: { code: R.error.code || "error" } },
      accountError(R.error.code, R.error.message)) : null,
  ].flat().filter(Boolean);
}

// The outcome of the last claim, buy or choice (polite), or its error (an alert).
export function rewardsStatus() {
  return els.status;
}
