import { isIP } from 'node:net';
import nodemailer from 'nodemailer';
import type { MailSettings } from './mail-settings.ts';

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
}

/** One SMTP connection per message: messages are few and far between, and a pool would outlive its settings. */
export async function sendThroughSmtp(settings: MailSettings, message: OutgoingMessage, timeoutMs: number): Promise<Accepted> {
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.security === 'tls',
    requireTLS: settings.security === 'starttls',
    ignoreTLS: settings.security === 'none',
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
  } finally {
    transport.close();
  }
}

/** A failure of `sendThroughSmtp` read for the sender (nodemailer's `responseCode`, `code`). */
export function failureOf(error: unknown): SendFailure {
  const failure = error as { responseCode?: number; code?: string; response?: string; message?: string };
  const code = Number(failure.responseCode);
  const said = failure.response || failure.message || String(error);
  return { permanent: code >= 500 && code < 600, reason: `${failure.code ? `${failure.code}: ` : ''}${said}`.replace(/\s+/g, ' ').slice(0, 500) };
}
