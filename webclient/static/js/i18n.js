// One translation function for every visible string: t(messageId, params).
// Catalogs are static/i18n/<locale>.json (message id -> text with {name} placeholders).

let messages = {};
let fallback = {};

export async function loadCatalog(base, locale) {
  const get = async (name) => {
    const response = await fetch(`${base}i18n/${name}.json`);
    return response.ok ? response.json() : {};
  };
  fallback = await get("en");
  messages = locale === "en" ? fallback : await get(locale);
}

export function t(id, params = {}) {
  const text = messages[id] ?? fallback[id] ?? id;
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in params ? String(params[key]) : whole));
}

export function has(id) {
  return id in messages || id in fallback;
}
