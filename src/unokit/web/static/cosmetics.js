// The player's cosmetics on the page: the chosen table colour and card back (from
// GET /api/shop) become CSS variables and classes on <html>, which the table's felt and
// the card backs read (pages.css). A slot's free default leaves the page as it is.
// Coins buy these looks only: nothing here reaches a room or a match.
//
//   applyCosmetics([{slot: "table", id: "table.blue", price: 80, colour: "#1565c0", chosen: true}])
//   -> <html class="cosmetic-table" data-table="table.blue" style="--table-colour: #1565c0">
import { api } from "./net.js";

// Each slot: its CSS variable and class ("table" -> --table-colour, cosmetic-table)
// and its data attribute on <html>.
export const SLOTS = { table: { name: "table", data: "table" }, card_back: { name: "card-back", data: "cardBack" } };

const COLOUR = /^#[0-9a-f]{6}$/i;

// Put the chosen cosmetics of `items` (the shop's list) on `root` (<html>).
export function applyCosmetics(items, root = document.documentElement) {
  for (const [slot, { name, data }] of Object.entries(SLOTS)) {
    const chosen = (items || []).find((item) => item.slot === slot && item.chosen);
    if (chosen && chosen.price > 0 && COLOUR.test(chosen.colour)) {
      root.style.setProperty("--" + name + "-colour", chosen.colour);
      root.classList.add("cosmetic-" + name);
      root.dataset[data] = chosen.id;
    } else {
      root.style.removeProperty("--" + name + "-colour");
      root.classList.remove("cosmetic-" + name);
      delete root.dataset[data];
    }
  }
}

// Read the shop and put the player's cosmetics on the page; the shop's answer, or null
// (no session, no server: the default looks stay).
export async function loadCosmetics() {
  try {
    const shop = await api("/api/shop");
    applyCosmetics(shop.items);
    return shop;
  } catch {
    return null;
  }
}
