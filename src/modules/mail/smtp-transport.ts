import { isIP } from 'node:net';
import { lazyLibrary } from '../../lazy-library.ts';
import type { MailSettings } from './mail-settings.ts';

/** Loaded with the first message (about 5 MiB resident): most processes never send one. */
const nodemailer = lazyLibrary<typeof import('nodemailer')>('nodemailer');

/** What a message goes as (nodemailer's message options, the part we use). */
export interface OutgoingMessage {
  from: string;
  to: string;
  cc?: string;
  bcc?: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  attachments: Array<{ filename: string; content: Buffer; contentType: string }>;
}

/** The server's answer to an accepted message. */
export interface Accepted {
  response: string;
  messageId: string;
  rejected: string[];
}

/**
 * Why a hand-over failed, as the sender decides what to do next: `permanent` is the server's 5xx
 * (it will say the same again: the message ends `fallido`), anything else is tried again.
 */
export interface SendFailure {
  permanent: boolean;
  reason: string;
  /**
   * The whole message had been written when it failed (no answer to its end, a connection lost
   * then): the server may have taken it (RFC 1047), so a new attempt may deliver it twice.
   */
  afterData?: boolean;
}

/** Nodemailer's logger interface, listening for one line: the message's data written whole. */
function dataWatcher(): { logger: Record<string, (...args: unknown[]) => void>; written: () => boolean } {
  let written = false;
  const quiet = () => {};
  return {
    logger: {
      trace: quiet, debug: quiet, warn: quiet, error: quiet, fatal: quiet,
      info: (meta: unknown) => {
        if ((meta as { tnx?: string } | null)?.tnx === 'message') written = true;
      },
    },
    written: () => written,
  };
}

/** One SMTP connection per message: messages are few and far between, and a pool would outlive its settings. */
export async function sendThroughSmtp(settings: MailSettings, message: OutgoingMessage, timeoutMs: number): Promise<Accepted> {
  const watcher = dataWatcher();
  const transport = nodemailer().createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.security === 'tls',
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
    logger: watcher.logger as never,
    auth: settings.user ? { user: settings.user, pass: settings.password } : undefined,
    // SNI names a host, never an address (RFC 6066).
    tls: { rejectUnauthorized: !settings.lowsecure, ...(isIP(settings.host) ? {} : { servername: settings.host }) },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail(message);
    return { response: String(info.response ?? ''), messageId: String(info.messageId ?? message.messageId), rejected: (info.rejected ?? []).map(String) };
  } catch (error) {
    if (error && typeof error === 'object') Object.assign(error, { afterData: watcher.written() });
    throw error;
  } finally {
    transport.close();
  }
}

/** A failure of `sendThroughSmtp` read for the sender (nodemailer's `responseCode`, `code`). */
export function failureOf(error: unknown): SendFailure {
  const failure = error as { responseCode?: number; code?: string; response?: string; message?: string; afterData?: boolean };
  const code = Number(failure.responseCode);
  const said = failure.response || failure.message || String(error);
  const permanent = code >= 500 && code < 600;
  // A 4xx or 5xx answer to the end of the data is the server's refusal: it did not take the message.
  return { permanent, reason: `${failure.code ? `${failure.code}: ` : ''}${said}`.replace(/\s+/g, ' ').slice(0, 500), afterData: Boolean(failure.afterData) && !(code >= 400) };
}
