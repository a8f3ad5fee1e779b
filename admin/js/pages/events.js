// Events: the change feed, newest first, following new events while the page is open (a poll
// of `after=<next>` every few seconds, paused while the tab is hidden).
import { html, useEffect, useRef, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { t } from '../i18n.js';
import { cell, ErrorBox, Notice } from '../ui.js';

const FOLLOW_MS = 3000;
const SHOWN = 200;

export function Events() {
  const [events, setEvents] = useState([]);
  const [type, setType] = useState('');
  const [applied, setApplied] = useState('');
  const [following, setFollowing] = useState(true);
  const [error, setError] = useState(null);
  const [arrived, setArrived] = useState(0);
  const next = useRef(null);
  useEffect(() => {
    let live = true;
    let timer;
    const add = (page, polled) => {
      next.current = page.next;
      if (page.events.length) setEvents((previous) => [...page.events.slice().reverse(), ...previous].slice(0, SHOWN));
      if (polled && page.events.length) setArrived((count) => count + page.events.length);
    };
    const start = () =>
      api('GET', apiPath('events', { latest: 50, type: applied })).then(
        ({ data }) => {
          if (!live) return;
          setEvents([]);
          add(data, false);
          timer = setTimeout(poll, FOLLOW_MS);
        },
        (failure) => live && setError(failure),
      );
    const poll = async () => {
      if (!live) return;
      if (following && !document.hidden) {
        try {
          for (let more = true; more && live; ) {
            const { data } = await api('GET', apiPath('events', { after: next.current, type: applied, limit: 100 }));
            if (!live) return;
            add(data, true);
            more = data.more;
          }
          setError(null);
        } catch (failure) {
          // Asleep past the log's retention: start again from the newest events.
          if (live && failure.code === 'events-cursor-expired') return start();
          if (live) setError(failure);
        }
      }
      if (live) timer = setTimeout(poll, FOLLOW_MS);
    };
    setArrived(0);
    start();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [applied, following]);
  return html`<h1>${t('menu.events')}</h1>
    <form class="filters" onSubmit=${(event) => { event.preventDefault(); setApplied(type.trim()); }}>
      <div class="field"><label for="event-type">${t('events.type')}</label><input id="event-type" value=${type} placeholder="document.*" aria-describedby="event-type-help" onInput=${(event) => setType(event.target.value)} />
        <span id="event-type-help" class="muted">${t('events.type-help')}</span></div>
      <button type="submit">${t('documents.apply')}</button>
      <div class="field check"><input id="event-follow" type="checkbox" checked=${following} onChange=${(event) => setFollowing(event.target.checked)} /><label for="event-follow">${t('events.follow')}</label></div>
    </form>
    <${ErrorBox} error=${error} />
    <${Notice} text=${arrived ? t('events.arrived', { count: arrived }) : ''} />
    <table>
      <caption>${t('events.caption')}</caption>
      <thead><tr><th scope="col">${t('keys.id')}</th><th scope="col">${t('events.when')}</th><th scope="col">${t('events.type')}</th><th scope="col">${t('events.resource')}</th><th scope="col">${t('events.key')}</th></tr></thead>
      <tbody>${events.map((event) => html`<tr key=${event.id} data-event=${event.id}><td>${event.id}</td><td><time datetime=${event.created}>${new Date(event.created).toLocaleString(document.documentElement.lang)}</time></td>
        <td><code>${event.type}</code></td><td>${cell(event.resource)}</td><td>${cell(event.key)}</td></tr>`)}</tbody>
    </table>
    ${events.length === 0 && html`<p>${t('events.none')}</p>`}`;
}
