// The console's shell: sign-in, the menu (following what the key may read), the language switch
// and a hash router over the pages. Everything it shows comes from the public API.
import { html, render, useEffect, useRef, useState } from './lib.js';
import { api, canRead, session, whenUnauthorised } from './api.js';
import { language, LANGUAGES, setLanguage, t } from './i18n.js';
import { ErrorBox } from './ui.js';
import { DOCUMENT_TYPES } from './documents.js';
import { Overview } from './pages/overview.js';
import { Keys } from './pages/keys.js';
import { Settings } from './pages/settings.js';
import { Documents } from './pages/documents.js';
import { DocumentPage } from './pages/document.js';
import { CustomerPage } from './pages/customer.js';
import { Plugins } from './pages/plugins.js';
import { Webhooks } from './pages/webhooks.js';
import { Email } from './pages/email.js';
import { Recurring } from './pages/recurring.js';
import { Import } from './pages/import.js';
import { Remittances } from './pages/remittances.js';
import { Statements } from './pages/statements.js';
import { Taxes } from './pages/taxes.js';
import { Events } from './pages/events.js';
import { Verifactu } from './pages/verifactu.js';
import { Ticketbai } from './pages/ticketbai.js';

/** The menu, each entry shown when the key may read one of the resources it needs (none: always). */
const MENU = [
  { id: 'overview', needs: [] },
  { id: 'keys', needs: ['apikey'] },
  { id: 'settings', needs: ['settings'] },
  { id: 'documents', needs: DOCUMENT_TYPES.map((type) => type.resource) },
  { id: 'verifactu', needs: ['verifactuempresa', 'registroverifactu'] },
  { id: 'ticketbai', needs: ['ticketbaiempresa', 'registroticketbai'] },
  { id: 'plugins', needs: ['plugins'] },
  { id: 'recurring', needs: ['facturarecurrente'] },
  { id: 'remittances', needs: ['remesasepa'] },
  { id: 'statements', needs: ['movimientobanco'] },
  { id: 'taxes', needs: ['liquidacioniva'] },
  { id: 'import', needs: ['importar'] },
  { id: 'email', needs: ['emailsent'] },
  { id: 'webhooks', needs: ['webhook'] },
  { id: 'events', needs: ['events'] },
];

/**
 * The root listing's resources, refusing a key of the facturascripts profile: it is answered with
 * the established system's plural names and shapes (docs/compatibility.md), and the console speaks
 * the spec profile only. Called at sign-in (the key is never kept) and on every access check (a
 * kept key whose profile changed since signs out with the same message).
 */
function specResources(data) {
  const listed = new Set(data.resources);
  if (!listed.has('cliente') && listed.has('clientes')) throw Object.assign(new Error('legacy-profile'), { code: 'legacy-profile' });
  return listed;
}

/** What the key may read, from the root listing (what exists now) and one probe per resource. */
async function readAccess() {
  const { data } = await api('GET', '/api/3');
  const listed = specResources(data);
  const wanted = [...new Set([...MENU.flatMap((entry) => entry.needs), 'cliente', 'openapi'])].filter((resource) => listed.has(resource));
  const answers = await Promise.all(wanted.map((resource) => canRead(resource)));
  return { listed, readable: new Set(wanted.filter((_, index) => answers[index])) };
}

const routeOf = () => (location.hash.replace(/^#\/?/, '') || 'overview').split('/').map(decodeURIComponent);

function SignIn({ onSignedIn, refused }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(refused);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      specResources((await api('GET', '/api/3', undefined, key.trim())).data);
      session.signIn(key.trim());
      onSignedIn();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return html`<main id="content" class="sign-in">
    <h1>${t('app.title')}</h1>
    <form onSubmit=${submit}>
      <h2>${t('signin.title')}</h2>
      <p>${t('signin.help')}</p>
      <label for="signin-key">${t('signin.key')}</label>
      <input id="signin-key" type="password" autocomplete="off" spellcheck="false" required value=${key} onInput=${(event) => setKey(event.target.value)} />
      <button type="submit" disabled=${busy}>${t('signin.submit')}</button>
      <${ErrorBox} error=${error} />
    </form>
    <${LanguageSwitch} />
  </main>`;
}

function LanguageSwitch() {
  return html`<div class="language">
    <label for="language">${t('app.language')}</label>
    <select id="language" value=${language()} onChange=${(event) => setLanguage(event.target.value)}>
      ${LANGUAGES.map((code) => html`<option value=${code}>${t(`language.${code}`)}</option>`)}
    </select>
  </div>`;
}

function Page({ route, access, refreshAccess }) {
  const [page, ...rest] = route;
  const props = { access, refreshAccess };
  switch (page) {
    case 'keys':
      return html`<${Keys} ...${props} />`;
    case 'settings':
      return html`<${Settings} ...${props} />`;
    case 'documents':
      return rest[1] ? html`<${DocumentPage} type=${rest[0]} id=${rest[1]} ...${props} />` : html`<${Documents} type=${rest[0]} ...${props} />`;
    case 'customer':
      return rest[0] ? html`<${CustomerPage} code=${rest[0]} ...${props} />` : html`<${Overview} ...${props} />`;
    case 'verifactu':
      return html`<${Verifactu} ...${props} />`;
    case 'ticketbai':
      return html`<${Ticketbai} ...${props} />`;
    case 'plugins':
      return html`<${Plugins} ...${props} />`;
    case 'recurring':
      return html`<${Recurring} ...${props} />`;
    case 'remittances':
      return html`<${Remittances} ...${props} />`;
    case 'statements':
      return html`<${Statements} ...${props} />`;
    case 'taxes':
      return html`<${Taxes} ...${props} />`;
    case 'import':
      return html`<${Import} ...${props} />`;
    case 'email':
      return html`<${Email} ...${props} />`;
    case 'webhooks':
      return html`<${Webhooks} ...${props} />`;
    case 'events':
      return html`<${Events} ...${props} />`;
    default:
      return html`<${Overview} ...${props} />`;
  }
}

function App() {
  const [signedIn, setSignedIn] = useState(Boolean(session.key));
  const [access, setAccess] = useState(null);
  const [error, setError] = useState(null);
  /** Why a kept key was signed out (its profile changed): shown on the sign-in form. */
  const [refused, setRefused] = useState(null);
  const [route, setRoute] = useState(routeOf());
  const [, setLang] = useState(language());

  // Only the latest check counts: two quick plugin switches must not leave the older menu.
  const checks = useRef(0);
  const refreshAccess = () => {
    const check = ++checks.current;
    return readAccess().then(
      (found) => {
        if (check !== checks.current) return;
        setAccess(found);
        setError(null);
      },
      (failure) => {
        if (check !== checks.current) return;
        if (failure.code !== 'legacy-profile') return setError(failure);
        session.signOut();
        setAccess(null);
        setRefused(failure);
        setSignedIn(false);
      },
    );
  };

  useEffect(() => {
    whenUnauthorised(() => {
      session.signOut();
      setAccess(null);
      setSignedIn(false);
    });
    // Focus goes to the new page, not on a change within one (the document type select navigates).
    let page = routeOf()[0];
    const onHash = () => {
      const next = routeOf();
      setRoute(next);
      if (next[0] !== page) document.getElementById('content')?.focus();
      page = next[0];
    };
    const onLanguage = () => setLang(language());
    addEventListener('hashchange', onHash);
    addEventListener('languagechange', onLanguage);
    return () => {
      removeEventListener('hashchange', onHash);
      removeEventListener('languagechange', onLanguage);
    };
  }, []);
  useEffect(() => {
    if (signedIn) refreshAccess();
  }, [signedIn]);

  if (!signedIn) return html`<${SignIn} refused=${refused} onSignedIn=${() => { setRefused(null); setSignedIn(true); }} />`;
  const signOut = () => {
    session.signOut();
    setAccess(null);
    setSignedIn(false);
    location.hash = '';
  };
  const shown = access ? MENU.filter((entry) => !entry.needs.length || entry.needs.some((resource) => access.readable.has(resource))) : [];
  return html`<a class="skip" href="#content" onClick=${(event) => { event.preventDefault(); document.getElementById('content')?.focus(); }}>${t('app.skip')}</a>
    <header>
      <p class="brand">${t('app.title')}</p>
      <nav aria-label=${t('app.menu')}>
        <ul>
          ${shown.map((entry) => html`<li><a href=${`#/${entry.id}`} aria-current=${route[0] === entry.id || (route[0] === '' && entry.id === 'overview') ? 'page' : undefined}>${t(`menu.${entry.id}`)}</a></li>`)}
        </ul>
      </nav>
      <${LanguageSwitch} />
      <button type="button" class="sign-out" onClick=${signOut}>${t('app.signout')}</button>
    </header>
    <main id="content" tabindex="-1">
      <${ErrorBox} error=${error} />
      ${access ? html`<${Page} route=${route} access=${access} refreshAccess=${refreshAccess} />` : html`<p>${t('common.loading')}</p>`}
    </main>`;
}

document.documentElement.lang = language();
const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
