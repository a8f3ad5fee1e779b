// Spanish and English, chosen from the browser and switchable; the choice is kept in localStorage.
// `t(key, vars, fallback)`: the message in the current language, else English, else the fallback.
import { en } from './messages-en.js';
import { es } from './messages-es.js';

const MESSAGES = { en, es };
export const LANGUAGES = Object.keys(MESSAGES);
const STORAGE = 'invoicing.admin.language';

function preferred() {
  const stored = localStorage.getItem(STORAGE);
  if (stored && MESSAGES[stored]) return stored;
  for (const tag of navigator.languages || [navigator.language]) {
    const code = String(tag).slice(0, 2).toLowerCase();
    if (MESSAGES[code]) return code;
  }
  return 'en';
}

let current = preferred();

export const language = () => current;

/** Switches the language; the shell re-renders on the window's `languagechange` event. */
export function setLanguage(code) {
  if (!MESSAGES[code]) return;
  current = code;
  localStorage.setItem(STORAGE, code);
  document.documentElement.lang = code;
  dispatchEvent(new Event('languagechange'));
}

export function t(key, vars = {}, fallback) {
  const text = MESSAGES[current][key] ?? MESSAGES.en[key] ?? fallback ?? key;
  return text.replace(/\{(\w+)\}/g, (match, name) => (vars[name] === undefined ? match : String(vars[name])));
}
