// One translation function for every visible string: t(id, params) and, where a
// number decides the wording, tn(id, count, params). The catalogs are
// static/i18n/<locale>.json, exported from the gettext catalogs (make i18n):
// { locale, dir, plural: {CLDR category: form index}, messages: {id: text | [forms]} }.

let current = { locale: "en", plural: { other: 0 }, messages: {} };
let fallback = current;
let rules = new Intl.PluralRules("en");

export async function loadCatalog(base, locale) {
  const get = async (name) => {
    const response = await fetch(`${base}i18n/${name}.json`);
    return response.ok ? response.json() : { locale: name, plural: { other: 0 }, messages: {} };
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

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? format(params[key]) : whole));
}

const format = (value) => (typeof value === "number" ? value.toLocaleString(current.locale) : String(value));

export function t(id, params = {}) {
  return fill(pick(current, id, 1) ?? pick(fallback, id, 1) ?? id, params);
}

export function tn(id, count, params = {}) {
  const all = { count, ...params };
  return fill(pick(current, id, count) ?? pick(fallback, id, count) ?? id, all);
}

export function has(id) {
  return id in current.messages || id in fallback.messages;
}

// The same as t() for ids built at run time (colour.${name}, error.${reason}...);
// those ids are declared in webclient/messages.py for extraction.
export const td = (id, params = {}) => t(id, params);
