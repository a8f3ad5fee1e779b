import { createHmac, timingSafeEqual } from 'node:crypto';

/** The two links every attached file carries, as the reference names them. */
export interface FileLinks {
  download: string;
  'download-permanent': string;
}

export type LinkVerdict = 'ok' | 'expired' | 'invalid';

const DAY_SECONDS = 86_400;
const HOUR_SECONDS = 3_600;

/**
 * Download links: the stored path and a token `myft` (the reference's parameter), an HMAC-SHA256
 * over the path under the service's secret (created at first start, kept in the database; the
 * reference hashed the database password). A `download` token carries its expiry (a day ahead,
 * rounded up to the hour so that a link stays the same for an hour and caches well) and is
 * `<expiry>.<mac>`; a `download-permanent` token is `p.<mac>`. Links are relative to the service's
 * root, as the reference's are: `MyFiles/2026/11/7_report.pdf?myft=...`.
 */
export function downloadLinks(secret: string, nowSeconds: () => number = () => Math.floor(Date.now() / 1000)) {
  const mac = (scope: string, path: string) => createHmac('sha256', secret).update(`${scope}\n${path}`).digest('base64url');
  const url = (path: string, token: string) => `${path.split('/').map(encodeURIComponent).join('/')}?myft=${token}`;
  return {
    linksOf(path: string): FileLinks {
      const expires = Math.ceil((nowSeconds() + DAY_SECONDS) / HOUR_SECONDS) * HOUR_SECONDS;
      return { download: url(path, `${expires}.${mac(String(expires), path)}`), 'download-permanent': url(path, `p.${mac('p', path)}`) };
    },
    /** Whether `token` opens `path`; compared in constant time. */
    verify(path: string, token: unknown): LinkVerdict {
      if (typeof token !== 'string') return 'invalid';
      const match = /^(p|\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!match) return 'invalid';
      const [, scope, given] = match as unknown as [string, string, string];
      const expected = Buffer.from(mac(scope, path));
      if (!timingSafeEqual(expected, Buffer.from(given))) return 'invalid';
      return scope !== 'p' && Number(scope) < nowSeconds() ? 'expired' : 'ok';
    },
    /** A validator of the bytes at `path` for `ETag` (the path changes when the bytes are replaced). */
    tagOf(path: string, size: number): string {
      return `"${size.toString(36)}-${mac('etag', path).slice(0, 16)}"`;
    },
  };
}

export type DownloadLinks = ReturnType<typeof downloadLinks>;
