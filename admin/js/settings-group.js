// One settings group edited as a form (the `default` group on Settings, `email` on E-mail): its
// stored keys, the edits not yet saved, and a save that sends only the edits. A group that does
// not exist yet reads as empty and is created by its first save.
import { useEffect, useState } from './lib.js';
import { api, apiPath, recordOf } from './api.js';
import { t } from './i18n.js';

export function useSettingsGroup(name, fixed = {}) {
  const [stored, setStored] = useState(null);
  const [edits, setEdits] = useState({});
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const [exists, setExists] = useState(true);
  useEffect(() => {
    api('GET', apiPath(['settings', name])).then(({ data }) => setStored(data.properties || {}), (failure) => {
      if (failure.status !== 404) return setError(failure);
      setExists(false);
      setStored({});
    });
  }, [name]);
  const save = async (event) => {
    event.preventDefault();
    setError(null);
    setNotice('');
    try {
      const properties = { ...fixed, ...edits };
      const { data } = exists ? await api('PUT', apiPath(['settings', name]), { properties }) : await api('POST', apiPath(['settings']), { name, properties });
      setStored(recordOf(data).properties || {});
      setExists(true);
      setEdits({});
      setNotice(t('settings.saved'));
    } catch (failure) {
      setError(failure);
    }
  };
  const value = (key) => (stored && key in edits ? edits[key] : stored?.[key]);
  const edit = (key, next) => setEdits((previous) => ({ ...previous, [key]: next }));
  return { stored, edits, value, edit, save, error, setError, notice, setNotice };
}
