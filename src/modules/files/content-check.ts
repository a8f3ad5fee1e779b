import fs from 'node:fs/promises';
import { isUtf8 } from 'node:buffer';
import { fileTypeFromFile } from 'file-type';
import { BLOCKED_EXTENSIONS, extensionOf } from './stored-name.ts';

/** What the bytes of an upload are, or why they are refused. */
export type ContentVerdict = { ok: true; mimetype: string } | { ok: false; reason: 'empty-file' | 'blocked-extension' | 'active-content' };

const SNIFF_BYTES = 1024;

/**
 * Starts of documents a browser would render as HTML (the WHATWG MIME sniffing patterns), plus
 * SVG, XHTML and PHP: such content is refused whatever its name says, so that no stored file can
 * run a script in a browser that ignores the served type.
 */
const ACTIVE_STARTS = [
  '<!doctype html', '<html', '<head', '<script', '<iframe', '<h1', '<div', '<font', '<table', '<a', '<style', '<title', '<b', '<body', '<br', '<p', '<!--',
  '<svg', '<?php',
];
const ACTIVE_ANYWHERE = ['<script', '<svg', '<html', '<iframe', '<?php', 'http://www.w3.org/1999/xhtml', 'javascript:'];

function looksActive(head: Buffer): boolean {
  const text = head.toString('latin1').replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '').replace(/\u0000/g, '').trimStart().toLowerCase();
  // A tag counts when a space, `>` or `/` (or the end) follows it; `<!--` and `<?php` always do.
  const startsLikeMarkup = ACTIVE_STARTS.some((start) => text.startsWith(start) && (start === '<!--' || start === '<?php' || /^[\s>/]?$/.test(text.charAt(start.length))));
  return startsLikeMarkup || ACTIVE_ANYWHERE.some((needle) => text.includes(needle));
}

/**
 * Judges an upload by its bytes (the stored MIME type comes from the content, never from the
 * client): a file type recognised by its signature (file-type), else UTF-8 text, else octet
 * stream. Refused: an empty file, a blocked extension, and content that sniffs as markup or
 * script unless it is a recognised binary type.
 */
export async function checkContent(file: string, size: number, name: string): Promise<ContentVerdict> {
  if (size === 0) return { ok: false, reason: 'empty-file' };
  if (BLOCKED_EXTENSIONS.has(extensionOf(name))) return { ok: false, reason: 'blocked-extension' };
  const detected = await fileTypeFromFile(file);
  if (detected && !/^(text\/html|image\/svg\+xml|application\/xhtml\+xml|application\/(x-)?javascript)$/.test(detected.mime)) {
    return { ok: true, mimetype: detected.mime };
  }
  const handle = await fs.open(file, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(Math.min(SNIFF_BYTES, size));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  if (detected || looksActive(head)) return { ok: false, reason: 'active-content' };
  return { ok: true, mimetype: isText(head, size > head.length) ? 'text/plain' : 'application/octet-stream' };
}

/** UTF-8 without NUL bytes; a head cut short may end inside a character (up to 3 bytes of it). */
function isText(head: Buffer, truncated: boolean): boolean {
  if (head.includes(0)) return false;
  if (isUtf8(head)) return true;
  for (let cut = 1; truncated && cut <= 3 && cut < head.length; cut++) if (isUtf8(head.subarray(0, head.length - cut))) return true;
  return false;
}
