/**
 * Names of uploaded files. Nothing the client sends reaches a path unsanitised: the stored path is
 * built from the record's id, the date and a slug of the name, and the record's `filename` is the
 * client's last path segment without control characters.
 */

/** Extensions refused outright (the reference's list, plus other types a browser runs). */
export const BLOCKED_EXTENSIONS: ReadonlySet<string> = new Set([
  'htaccess', 'htm', 'html', 'phar', 'php', 'php3', 'php4', 'php5', 'php6', 'php7', 'php8', 'pht', 'phtm', 'phtml', 'phps', 'shtml',
  'xhtml', 'xht', 'svg', 'svgz', 'js', 'mjs', 'hta',
]);

const MAX_NAME = 100;

/**
 * Percent-encoding undone, however many times it was applied (`%252e` -> `%2e` -> `.`): a name
 * that spells a separator, a dot or NUL encoded is cleaned as what it spells. A malformed sequence
 * decodes where it can (ASCII escapes) and is otherwise left as it is.
 */
function percentDecoded(raw: string): string {
  let name = raw;
  // Each round that changes anything shortens the name: this ends.
  for (;;) {
    let next: string;
    try {
      next = decodeURIComponent(name);
    } catch {
      next = name.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    }
    if (next === name) break;
    name = next;
  }
  return name;
}

/**
 * The client's file name as the record keeps it: percent-encoding undone, its last segment after
 * any `/` or `\`, without control characters (NUL included), trimmed of dots and spaces at the
 * ends, lower-cased (as the reference does), at most 100 characters with the extension kept.
 * Empty: `file`.
 */
export function cleanFileName(raw: string): string {
  const segment = percentDecoded(raw).normalize('NFC').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  let name = segment.replace(/[\u0000-\u001f\u007f]/g, '').replace(/^[\s.]+|[\s.]+$/g, '').toLowerCase();
  if (name === '') name = 'file';
  if ([...name].length <= MAX_NAME) return name;
  const ext = extensionOf(name);
  const keep = ext ? MAX_NAME - ext.length - 1 : MAX_NAME;
  return [...name].slice(0, keep).join('') + (ext ? `.${ext}` : '');
}

/** The extension of a name, lower case, letters and digits only, at most 10 characters; '' when none. */
export function extensionOf(name: string): string {
  const match = /\.([a-z0-9]{1,10})$/i.exec(name);
  return match ? match[1]!.toLowerCase() : '';
}

/** ASCII letters and digits joined by `-`, at most 60 characters: safe in any file system and URL. */
export function slugOf(name: string): string {
  const ext = extensionOf(name);
  const base = ext ? name.slice(0, -(ext.length + 1)) : name;
  const slug = base.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60).replace(/-+$/, '');
  return slug || 'file';
}

/**
 * Where a file's bytes live, as the reference names them: `MyFiles/<yyyy>/<mm>/<idfile>_<slug>.<ext>`
 * under the data folder (or under that key in the database). `variant` tells a replacement apart
 * from the bytes it replaces.
 */
export function storedPathOf(idfile: number, name: string, date: string, variant?: string): string {
  const ext = extensionOf(name);
  const [year, month] = date.split('-');
  return `MyFiles/${year}/${month}/${idfile}_${slugOf(name)}${variant ? `-${variant}` : ''}${ext ? `.${ext}` : ''}`;
}

/** Where the thumbnails of an attached image live: every path starting so goes with the file. */
export function thumbnailPrefixOf(idfile: number): string {
  return `MyFiles/Tmp/Thumbnails/${idfile}_`;
}

/** A thumbnail's path, as the reference names them: `<idfile>_<name>_<W>x<H>.<ext>`. */
export function thumbnailPathOf(idfile: number, name: string, width: number, height: number, ext: string): string {
  return `${thumbnailPrefixOf(idfile)}${slugOf(name)}_${width}x${height}.${ext}`;
}
