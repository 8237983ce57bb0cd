// A tiny element builder: h("button", {testid: "play-now", onclick}, "text").
const SVG = "http://www.w3.org/2000/svg"; // the SVG namespace name, not an address to fetch

// The path the server is hosted under ("" or e.g. "/uno"), from the page's
// <meta name="unokit-base">, which the server fills in: every address starts with it.
const baseMeta = globalThis.document ? document.querySelector('meta[name="unokit-base"]') : null;
export const BASE = (baseMeta && baseMeta.getAttribute("content")) || "";

function set(el, key, value) {
  if (value === null || value === undefined || value === false) return;
  if (key.startsWith("on") && typeof value === "function") {
    el.addEventListener(key.slice(2), value);
  } else if (key === "class") {
    el.setAttribute("class", value);
  } else if (key === "testid") {
    el.setAttribute("data-testid", value);
  } else if (key === "data") {
    for (const [name, v] of Object.entries(value)) {
      if (v !== null && v !== undefined) el.setAttribute("data-" + name, String(v));
    }
  } else if (key === "vars") {
    for (const [name, v] of Object.entries(value)) el.style.setProperty("--" + name, String(v));
  } else if (key === "value" || key === "checked" || key === "selected") {
    el[key] = value;
  } else {
    el.setAttribute(key, value === true ? "" : String(value));
  }
}

function add(el, kids) {
  for (const kid of kids) {
    if (kid === null || kid === undefined || kid === false) continue;
    if (Array.isArray(kid)) add(el, kid);
    else if (kid instanceof Node) el.appendChild(kid);
    else el.appendChild(document.createTextNode(String(kid)));
  }
}

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) set(el, key, value);
  add(el, kids);
  return el;
}

export function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) set(el, key, value);
  add(el, kids);
  return el;
}

export function option(value, label, selected) {
  return h("option", { value, selected: selected ? true : null }, label);
}
