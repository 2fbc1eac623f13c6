// One translation function for every visible string: t(id, params) and, where a
// number decides the wording, tn(id, count, params). The catalogs are
// static/i18n/<locale>.json, exported from the gettext catalogs (make i18n):
// { locale, dir, plural: {CLDR category: form index}, messages: {id: text | [forms]} }.

let current = { locale: "en", dir: "ltr", plural: { other: 0 }, messages: {} };
let fallback = current;
let rules = new Intl.PluralRules("en");

export async function loadCatalog(base, locale) {
  const get = async (name) => {
    const response = await fetch(`${base}i18n/${name}.json`);
    return response.ok ? response.json() : { locale: name, dir: "ltr", plural: { other: 0 }, messages: {} };
  };
  fallback = await get("en");
  current = locale === "en" ? fallback : await get(locale);
  rules = new Intl.PluralRules(current.locale);
}

export const locale = () => current.locale;

// The text of one form: the CLDR category of `count` names the catalog's form.
function pick(catalog, id, count) {
  const entry = catalog.messages[id];
  if (entry === undefined) return undefined;
  if (!Array.isArray(entry)) return entry;
  const category = catalog === current ? rules.select(count) : new Intl.PluralRules("en").select(count);
  const index = catalog.plural[category] ?? catalog.plural.other ?? 0;
  return entry[Math.min(index, entry.length - 1)];
}

// Unicode isolation marks (FIRST STRONG ISOLATE, RIGHT-TO-LEFT ISOLATE … POP
// DIRECTIONAL ISOLATE).
export const FSI = "\u2068";
export const RLI = "\u2067";
export const PDI = "\u2069";
// Letters of a right-to-left script.
const RTL_LETTERS = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/;

// The one place where values go into sentences. In a right-to-left locale every
// value is isolated (a Latin name or a number cannot reorder the words around
// it); one with Hebrew in it runs right to left even if its Hebrew is in isolates
// of its own, which a first-strong isolate would skip.
function fill(text, params) {
  const isolate = current.dir === "rtl";
  return text.replace(/\{(\w+)\}/g, (whole, key) => {
    if (!(key in params)) return whole;
    const value = format(params[key]);
    if (!isolate) return value;
    return `${RTL_LETTERS.test(value) ? RLI : FSI}${value}${PDI}`;
  });
}

const format = (value) => (typeof value === "number" ? value.toLocaleString(current.locale) : String(value));

// A message whose params hold a numeric `count` takes its plural form from it.
export function t(id, params = {}) {
  const count = typeof params.count === "number" ? params.count : 1;
  return fill(pick(current, id, count) ?? pick(fallback, id, count) ?? id, params);
}

export function tn(id, count, params = {}) {
  return t(id, { ...params, count });
}

export function has(id) {
  return id in current.messages || id in fallback.messages;
}

// A list of items joined the way the language joins them ("a, b" / "a、b").
export const list = (items) => items.join(t("list.separator"));

// A list whose last item is joined by the language's "or" / "and" ("a, b or c";
// list.or and list.and place {head}, the items but the last already joined, before {final}).
const joined = (id, items) =>
  items.length < 2 ? items.join("") : t(id, { head: list(items.slice(0, -1)), final: items[items.length - 1] });
export const disjunction = (items) => joined("list.or", items);
export const conjunction = (items) => joined("list.and", items);

// A list of groups, each already a list ("beach 1: a, b; beach 2: c").
export const groups = (items) => items.join(t("list.group_separator"));

// The same as t() for ids built at run time (colour.${name}, error.${reason}...);
// those ids are declared in webclient/messages.py for extraction.
export const td = (id, params = {}) => t(id, params);
