// One page of a list (rows and X-Total-Count), read again whenever its resource, query or `version`
// changes. The answer to older inputs is dropped when it arrives late, so quick filter, sort or page
// changes never show another query's rows.
import { useEffect, useState } from './lib.js';
import { api, apiPath } from './api.js';

export function useListPage(resource, query, version = 0) {
  const [page, setPage] = useState({ rows: [], total: NaN });
  const [error, setError] = useState(null);
  const key = JSON.stringify(query);
  useEffect(() => {
    if (!resource) return;
    let live = true;
    setError(null);
    api('GET', apiPath(resource, query)).then(
      ({ data, total }) => live && setPage({ rows: data, total }),
      (failure) => live && setError(failure),
    );
    return () => {
      live = false;
    };
  }, [resource, key, version]);
  return { ...page, error, setError };
}
