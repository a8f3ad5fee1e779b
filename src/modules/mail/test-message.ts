import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import { AppError, validationError } from '../../errors.ts';
import { companyOf } from '../company/index.ts';
import { bodyFields } from '../../http/body.ts';
import { formatAddresses, parseAddresses } from './addresses.ts';
import { fillTemplate } from './fill-template.ts';
import { mailSettingsOf, requireConfigured } from './mail-settings.ts';
import { messageIdFor } from './outbox.ts';
import { failureOf, sendThroughSmtp } from './smtp-transport.ts';

/**
 * `probarEmail`: sends a short message now, with a company's settings (`idempresa`, default the
 * installation's company), to `to` (default the sender itself), and answers what the server said;
 * a refusal or a server out of reach is 502 `mail-server-error` with its words. Nothing is queued.
 */
export async function sendTestMessage(ctx: AppContext, body: unknown): Promise<Record<string, unknown>> {
  const { fields, errors } = bodyFields(body, ['to', 'idempresa']);
  const to = parseAddresses(fields.to);
  if (typeof to === 'string') errors.to = to;
  else if (to.length > 1) errors.to = 'too-many-recipients';
  const idempresa = fields.idempresa === undefined || fields.idempresa === '' ? (await ctx.settings()).idempresa : Number(fields.idempresa);
  if (!Number.isInteger(idempresa) || idempresa < 1) errors.idempresa = 'invalid-value';
  else if (!(await companyOf(ctx.database.kysely, idempresa))) errors.idempresa = 'company-not-found';
  if (Object.keys(errors).length) throw validationError(errors);
  const settings = await mailSettingsOf(ctx, idempresa);
  requireConfigured(settings);
  const recipient = (to as Array<{ name: string; address: string }>)[0] ?? settings.from!;
  const text = fillTemplate('Test message / Mensaje de prueba', 'This message was sent to test the e-mail settings.\n\nEste mensaje se envió para probar la configuración del correo.', {});
  const messageId = messageIdFor(randomBytes(7).toString('hex').slice(0, 13), settings.from!);
  try {
    const accepted = await sendThroughSmtp(settings, {
      from: formatAddresses([settings.from!]), to: formatAddresses([recipient]), subject: text.subject, text: text.text, html: text.html, messageId, attachments: [],
    }, ctx.config.mail.timeoutMs);
    return { sent: true, to: recipient.address, response: accepted.response, messageid: accepted.messageId, server: `${settings.host}:${settings.port}`, security: settings.security };
  } catch (error) {
    const failure = failureOf(error);
    throw new AppError('mail-server-error', { reason: failure.reason, permanent: failure.permanent, server: `${settings.host}:${settings.port}` });
  }
}
