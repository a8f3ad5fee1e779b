import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { extractText } from 'unpdf';
import { createDatabase } from '../src/db/database.ts';
import { prepareEn16931, validateEn16931 } from './helpers/en16931.ts';
import { startSmtp, type TestSmtp } from './helpers/smtp.ts';
import { forEachEngine, withOtherInstance, type TestApp } from './helpers/test-app.ts';

/**
 * E-mail (docs/email.md) against a real SMTP server started here (smtp-server: STARTTLS required,
 * AUTH): documents sent through the outbox arrive as asked, with the document's PDF and e-invoice;
 * refusals end a message, an unreachable or dropping server is retried until it takes it; two
 * instances send each message once; reminders go once per level; bad input queues nothing.
 */
let smtp: TestSmtp;
before(async () => {
  smtp = await startSmtp();
  await prepareEn16931();
});
after(() => smtp.stop());

const MAIL_CONFIG = { smtpUrl: undefined, pollMs: 3_600_000, retryBaseSeconds: 0, maxAttempts: 3, timeoutMs: 2000, maxAttachmentBytes: 5 * 1_048_576 };

async function configure(t: TestApp, extra: Record<string, unknown> = {}): Promise<void> {
  const answer = await t.call('PUT', '/api/3/settings/email', {
    properties: { mailer: 'smtp', host: '127.0.0.1', port: smtp.port, enc: 'tls', user: smtp.user, password: smtp.password, lowsecure: true, email: 'facturas@acme.example', fromname: 'Acme Facturación', ...extra },
  });
  if (answer.status === 404) {
    const created = await t.call('POST', '/api/3/settings', { name: 'email', properties: { mailer: 'smtp', host: '127.0.0.1', port: smtp.port, enc: 'tls', user: smtp.user, password: smtp.password, lowsecure: true, email: 'facturas@acme.example', fromname: 'Acme Facturación', ...extra } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  } else assert.equal(answer.status, 200, JSON.stringify(answer.body));
}

async function invoiceFor(t: TestApp, codcliente: string, fecha?: string): Promise<{ idfactura: number; codigo: string }> {
  const answer = await t.call('POST', '/api/3/crearFacturaCliente', {
    codcliente, ...(fecha ? { fecha } : {}), lineas: [{ descripcion: 'Consultoría', cantidad: 2, pvpunitario: 150, codimpuesto: 'IVA21' }],
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { idfactura: Number(answer.body.doc.idfactura), codigo: String(answer.body.doc.codigo) };
}

async function outbox(t: TestApp, id: number): Promise<Record<string, any>> {
  const answer = await t.call('GET', `/api/3/emailsent/${id}`);
  assert.equal(answer.status, 200);
  return answer.body;
}

const count = async (t: TestApp) => Number((await t.call('GET', '/api/3/emailsent?limit=1')).headers['x-total-count']);
const events = async (t: TestApp, type: string) => ((await t.call('GET', `/api/3/events?type=${type}&limit=500`)).body.events ?? []) as Array<{ type: string; payload: Record<string, unknown> }>;

forEachEngine('e-mail', (t) => {
  before(async () => {
    await configure(t());
    for (const [codcliente, nombre, email] of [['ANA', 'Ana López', 'ana@cliente.example'], ['SINMAIL', 'Sin Correo', ''], ['BEA', 'Bea Ruiz', 'bea@cliente.example']]) {
      const answer = await t().call('POST', '/api/3/cliente', { codcliente, nombre, cifnif: '12345678Z', email });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
    }
  });
  beforeEach(() => {
    smtp.mode = 'accept';
    smtp.received.length = 0;
  });



  it('payment reminders: the level a receipt has reached goes once, with the invoice\'s PDF; paid receipts and opted-out customers get none', async () => {
    await configure(t(), { reminderdays: '7,30' });
    try {
      // Business dates: the installation's today, as the job reads it.
      const today = Date.parse(`${t().app.ctx.clock.today().date}T00:00:00Z`);
      const day = (offset: number) => new Date(today + offset * 86_400_000).toISOString().slice(0, 10);
      // In date order: a serie's invoices are numbered by date (this test runs first for that).
      await invoiceFor(t(), 'BEA', day(-40));
      const paid = await invoiceFor(t(), 'ANA', day(-12));
      assert.equal((await t().call('POST', `/api/3/pagarFacturaCliente/${paid.idfactura}`, { pagada: true })).status, 200);
      const late = await invoiceFor(t(), 'ANA', day(-10));
      assert.equal((await t().call('POST', '/api/3/emailoptout', { codcliente: 'BEA' })).status, 201);
      await withOtherInstance(t(), (other) => Promise.all([t().app.runJob('mail-reminders'), other.app.runJob('mail-reminders')]), { config: { mail: MAIL_CONFIG } });
      const reminders = (await t().call('GET', '/api/3/emailsent?filter[tipo]=recordatorio')).body as Array<Record<string, any>>;
      assert.deepEqual(reminders.map((row) => [row.modeloid, row.addressee]), [[late.idfactura, 'ana@cliente.example']]);
      await t().app.runJob('mail-reminders');
      assert.equal((await t().call('GET', '/api/3/emailsent?filter[tipo]=recordatorio')).body.length, 1, 'a level goes once');
      await t().app.runJob('mail-send');
      const mail = smtp.received.find((received) => /Recordatorio de pago/.test(String(received.subject)))!;
      assert.ok(mail, 'the reminder arrived');
      assert.match(String(mail.subject), new RegExp(late.codigo));
      assert.match(String(mail.text), new RegExp(`factura ${late.codigo}, por 363,00 EUR, venció el`));
      assert.deepEqual(mail.attachments.map((file) => file.filename), [`Factura_${late.codigo}.pdf`]);
      // Twenty days later the receipt reaches the 30-day level: that one goes too, once.
      const database = createDatabase(t().databaseUrl);
      try {
        await database.kysely.updateTable('recibospagoscli').set({ vencimiento: day(-31) }).where('idfactura', '=', late.idfactura).execute();
      } finally {
        await database.close();
      }
      await t().app.runJob('mail-reminders');
      await t().app.runJob('mail-reminders');
      assert.equal((await t().call('GET', '/api/3/emailsent?filter[tipo]=recordatorio')).body.length, 2);
      await t().app.runJob('mail-send');
      assert.equal(smtp.received.filter((received) => /Recordatorio de pago/.test(String(received.subject))).length, 2);
    } finally {
      await configure(t(), { reminderdays: null });
    }
  });

  it('refuses e-mail settings it could not send with, naming the key; the password is never shown', async () => {
    for (const [properties, field, reason] of [
      [{ port: 70000 }, 'properties.port', 'invalid-port'],
      [{ enc: 'quantum' }, 'properties.enc', 'invalid-value'],
      [{ email: 'not an address' }, 'properties.email', 'invalid-email'],
      [{ fromname: 'Acme\r\nBcc: victim@example.com' }, 'properties.fromname', 'header-injection'],
      [{ mailer: 'sendmail' }, 'properties.mailer', 'unsupported-mailer'],
      [{ reminderdays: '7,x' }, 'properties.reminderdays', 'invalid-value'],
    ] as const) {
      const answer = await t().call('PUT', '/api/3/settings/email', { properties });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.equal(answer.body.fields[field], reason);
    }
    const company = await t().call('POST', '/api/3/settings', { name: 'email-999', properties: { host: 'smtp.example.com' } });
    assert.equal(company.status, 422);
    assert.equal(company.body.fields.name, 'company-not-found');
    const shown = await t().call('GET', '/api/3/settings/email');
    assert.equal(shown.body.properties.port, smtp.port, 'the refused writes changed nothing');
    assert.equal('password' in shown.body.properties, false);
  });

  it('probarEmail sends a test message and answers what the server said; a wrong password is the server\'s 535', async () => {
    const answer = await t().call('POST', '/api/3/probarEmail', { to: 'admin@acme.example' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.match(answer.body.response, /^250 /);
    assert.equal(smtp.received.length, 1);
    assert.equal(smtp.received[0]!.to && 'value' in smtp.received[0]!.to ? smtp.received[0]!.to.value[0]!.address : undefined, 'admin@acme.example');
    await configure(t(), { password: 'wrong' });
    try {
      const refused = await t().call('POST', '/api/3/probarEmail', {});
      assert.equal(refused.status, 502, JSON.stringify(refused.body));
      assert.equal(refused.body.message, 'mail-server-error');
      assert.equal(refused.body.permanent, true);
      assert.match(refused.body.reason, /535/);
    } finally {
      await configure(t());
    }
  });

  it('sends an invoice: From, To, Cc, Subject as asked, the PDF the export draws and a UBL that validates; the record and the event say so', async () => {
    const { idfactura, codigo } = await invoiceFor(t(), 'ANA');
    const answer = await t().call('POST', `/api/3/enviarFacturaCliente/${codigo}`, { cc: 'Contabilidad <conta@cliente.example>', attach: ['PDF', 'UBL'], lang: 'en' });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.equal(answer.body.estado, 'pendiente');
    assert.equal(answer.body.modelo, 'FacturaCliente');
    assert.equal(answer.body.modeloid, idfactura);
    assert.equal(smtp.received.length, 0, 'nothing goes before the sender runs');
    await t().app.runJob('mail-send');
    assert.equal(smtp.received.length, 1);
    const mail = smtp.received[0]!;
    assert.equal(mail.from?.value[0]?.address, 'facturas@acme.example');
    assert.equal(mail.from?.value[0]?.name, 'Acme Facturación');
    assert.deepEqual((mail.to as { value: Array<{ address: string }> }).value.map((to) => to.address), ['ana@cliente.example']);
    assert.deepEqual((mail.cc as { value: Array<{ address: string }> }).value.map((cc) => cc.address), ['conta@cliente.example']);
    assert.equal(mail.subject, `Invoice ${codigo} - ${answer.body.subject.split(' - ')[1]}`);
    assert.match(String(mail.text), new RegExp(`Please find attached Invoice ${codigo}`));
    assert.match(String(mail.html), /<p>Hello Ana López,<\/p>/);
    assert.deepEqual(mail.attachments.map((file) => file.filename), [`Invoice_${codigo}.pdf`, `Invoice_${codigo}.xml`]);
    const exported = await t().request({ method: 'GET', url: `/api/3/exportarFacturaCliente/${idfactura}?lang=en` });
    const pageText = async (bytes: Uint8Array) => (await extractText(new Uint8Array(bytes), { mergePages: true })).text;
    assert.equal(await pageText(mail.attachments[0]!.content), await pageText(exported.rawPayload));
    const { fatal } = await validateEn16931('ubl', mail.attachments[1]!.content.toString('utf8'));
    assert.deepEqual(fatal, []);
    const stored = await outbox(t(), answer.body.id);
    assert.equal(stored.estado, 'enviado');
    assert.match(stored.respuesta, /^250 /);
    assert.equal(stored.messageid, mail.messageId);
    assert.equal(stored.adjuntos, `Invoice_${codigo}.pdf, Invoice_${codigo}.xml`);
    assert.equal(stored.intentos, 1);
    const sent = (await events(t(), 'email.sent')).find((event) => event.payload.id === answer.body.id);
    assert.ok(sent, 'email.sent is logged');
    assert.equal(sent.payload.messageid, mail.messageId);
  });

  it('a delivery note goes to the customer\'s own address with the Spanish template; the settings\' Bcc copy rides along', async () => {
    await configure(t(), { bcc: 'archivo@acme.example' });
    try {
      const note = await t().call('POST', '/api/3/crearAlbaranCliente', { codcliente: 'BEA', lineas: [{ descripcion: 'Caja', cantidad: 1, pvpunitario: 10 }] });
      assert.equal(note.status, 200, JSON.stringify(note.body));
      const answer = await t().call('POST', `/api/3/enviarAlbaranCliente/${note.body.doc.idalbaran}`, {});
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      assert.equal(answer.body.copiaoculta, 'archivo@acme.example');
      await t().app.runJob('mail-send');
      const mail = smtp.received[0]!;
      assert.deepEqual((mail.to as { value: Array<{ address: string; name: string }> }).value, [{ address: 'bea@cliente.example', name: 'Bea Ruiz' }]);
      assert.match(String(mail.subject), new RegExp(`^Albarán ${note.body.doc.codigo} - `));
      assert.match(String(mail.text), /^Hola Bea Ruiz:/);
    } finally {
      await configure(t(), { bcc: null });
    }
  });

  it('refuses what cannot go as asked, naming the field, and queues nothing', async () => {
    const { idfactura } = await invoiceFor(t(), 'ANA');
    const { idfactura: orphan } = await invoiceFor(t(), 'SINMAIL');
    const before = await count(t());
    const many = Array.from({ length: 51 }, (_, i) => `r${i}@cliente.example`);
    for (const [url, body, field, reason] of [
      [`enviarFacturaCliente/${orphan}`, {}, 'to', 'no-recipient'],
      [`enviarFacturaCliente/${idfactura}`, { to: 'ana@cliente' }, 'to', 'invalid-email'],
      [`enviarFacturaCliente/${idfactura}`, { to: 'ana@cliente.example\r\nBcc: victim@example.com' }, 'to', 'header-injection'],
      [`enviarFacturaCliente/${idfactura}`, { subject: 'Factura\nBcc: victim@example.com' }, 'subject', 'header-injection'],
      [`enviarFacturaCliente/${idfactura}`, { to: many }, 'to', 'too-many-recipients'],
      [`enviarFacturaCliente/${idfactura}`, { attach: ['PDF', 'DOCX'] }, 'attach', 'invalid-export-type'],
      [`enviarFacturaCliente/${idfactura}`, { attachfiles: [999999] }, 'attachfiles', 'file-not-linked'],
      [`enviarFacturaCliente/${idfactura}`, { sendto: 'x@y.example' }, 'sendto', 'unknown-field'],
      [`enviarFacturaCliente/${idfactura}`, { lang: 'xx' }, 'lang', 'invalid-value'],
    ] as const) {
      const answer = await t().call('POST', `/api/3/${url}`, body);
      assert.equal(answer.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.fields[field], reason, JSON.stringify(answer.body));
    }
    const quote = await t().call('POST', '/api/3/crearPresupuestoCliente', { codcliente: 'ANA', lineas: [{ descripcion: 'Idea', cantidad: 1, pvpunitario: 5 }] });
    const ubl = await t().call('POST', `/api/3/enviarPresupuestoCliente/${quote.body.doc.idpresupuesto}`, { attach: 'UBL' });
    assert.equal(ubl.status, 422);
    assert.equal(ubl.body.fields.attach, 'export-type-unavailable');
    assert.equal((await t().call('POST', '/api/3/enviarFacturaCliente/999999', {})).status, 404);
    assert.equal((await t().call('POST', '/api/3/enviarFacturaCliente', {})).status, 400);
    assert.equal(await count(t()), before, 'nothing was queued');
  });

  it('a server that refuses (5xx) ends the message as fallido, with its words and email.failed', async () => {
    const { idfactura } = await invoiceFor(t(), 'ANA');
    const answer = await t().call('POST', `/api/3/enviarFacturaCliente/${idfactura}`, { attach: [] });
    smtp.mode = 'refuse';
    await t().app.runJob('mail-send');
    const stored = await outbox(t(), answer.body.id);
    assert.equal(stored.estado, 'fallido');
    assert.match(stored.error, /550/);
    assert.equal(stored.intentos, 1, 'a permanent refusal is not tried again');
    assert.ok((await events(t(), 'email.failed')).some((event) => event.payload.id === answer.body.id && /550/.test(String(event.payload.reason))));
  });

  it('a server that is down, or drops the connection mid-message, is tried again; the message goes once it takes it', async () => {
    const { idfactura } = await invoiceFor(t(), 'ANA');
    const down = await t().call('POST', `/api/3/enviarFacturaCliente/${idfactura}`, {});
    await smtp.stop();
    try {
      await t().app.runJob('mail-send');
    } finally {
      await smtp.start();
    }
    let stored = await outbox(t(), down.body.id);
    assert.equal(stored.estado, 'pendiente');
    assert.equal(stored.intentos, 1);
    assert.match(stored.error, /ECONNREFUSED|ECONNECTION|ESOCKET/);
    smtp.mode = 'drop';
    await t().app.runJob('mail-send');
    stored = await outbox(t(), down.body.id);
    assert.equal(stored.estado, 'pendiente', JSON.stringify(stored));
    assert.equal(stored.intentos, 2);
    assert.equal(smtp.received.length, 0);
    smtp.mode = 'accept';
    await t().app.runJob('mail-send');
    stored = await outbox(t(), down.body.id);
    assert.equal(stored.estado, 'enviado');
    assert.equal(stored.intentos, 3);
    assert.equal(smtp.received.length, 1);
    assert.equal(smtp.received[0]!.messageId, stored.messageid, 'every attempt carries the same Message-ID');
  });

  it('a hand-over whose outcome was never recorded (a crash) is sent again and marked as a possible duplicate', async () => {
    const { idfactura } = await invoiceFor(t(), 'ANA');
    const answer = await t().call('POST', `/api/3/enviarFacturaCliente/${idfactura}`, { attach: [] });
    const database = createDatabase(t().databaseUrl);
    try {
      // What a sender killed after the server's 250 leaves: its hand-over mark, its claim run out.
      await database.kysely.updateTable('emails_sent').set({ entregando: '2026-01-01 00:00:00', reserva: 'dead-sender', siguienteintento: '2026-01-01 00:00:00' }).where('id', '=', answer.body.id).execute();
    } finally {
      await database.close();
    }
    await t().app.runJob('mail-send');
    const stored = await outbox(t(), answer.body.id);
    assert.equal(stored.estado, 'enviado');
    assert.equal(stored.posibleduplicado, true);
    assert.equal(stored.entregando, null);
    assert.equal((await events(t(), 'email.sent')).find((event) => event.payload.id === answer.body.id)?.payload.possibleDuplicate, true);
  });

  it('a company\'s own group wins key by key, and SMTP_URL replaces the server and login of every company', async () => {
    const own = await t().call('POST', '/api/3/settings', { name: 'email-1', properties: { fromname: 'Acme Norte', replyto: 'norte@acme.example' } });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    try {
      await configure(t(), { host: 'smtp.invalid', password: 'wrong' });
      const { idfactura } = await invoiceFor(t(), 'ANA');
      const url = `smtp://${smtp.user}:${smtp.password}@127.0.0.1:${smtp.port}?lowsecure=true`;
      await withOtherInstance(t(), async (other) => {
        const answer = await other.call('POST', `/api/3/enviarFacturaCliente/${idfactura}`, { attach: [] });
        assert.equal(answer.status, 202, JSON.stringify(answer.body));
        assert.equal(answer.body.responder, 'norte@acme.example');
        await other.app.runJob('mail-send');
        const probe = await other.call('POST', '/api/3/probarEmail', {});
        assert.equal(probe.status, 200, JSON.stringify(probe.body));
        assert.equal(probe.body.server, `127.0.0.1:${smtp.port}`);
        assert.equal(probe.body.security, 'starttls');
      }, { config: { mail: { ...MAIL_CONFIG, smtpUrl: url } } });
      const mail = smtp.received[0]!;
      assert.deepEqual(mail.from?.value[0], { address: 'facturas@acme.example', name: 'Acme Norte' });
      assert.equal(mail.replyTo?.value[0]?.address, 'norte@acme.example');
    } finally {
      await t().call('DELETE', '/api/3/settings/email-1');
      await configure(t());
    }
  });

  it('a message whose end the server never answered is tried again and flagged: the server may have taken it', async () => {
    const { idfactura } = await invoiceFor(t(), 'ANA');
    const answer = await t().call('POST', `/api/3/enviarFacturaCliente/${idfactura}`, { attach: [] });
    smtp.mode = 'hang';
    await t().app.runJob('mail-send');
    let stored = await outbox(t(), answer.body.id);
    assert.equal(stored.estado, 'pendiente');
    assert.match(stored.error, /ETIMEDOUT/);
    assert.notEqual(stored.entregando, null, 'the hand-over mark stays');
    smtp.mode = 'accept';
    await t().app.runJob('mail-send');
    stored = await outbox(t(), answer.body.id);
    assert.equal(stored.estado, 'enviado');
    assert.equal(stored.posibleduplicado, true);
    assert.equal(smtp.received.length, 1);
  });

  it('without a sender address the company\'s own e-mail sends, a long name cuts nothing, and a queued message cannot be edited', async () => {
    assert.equal((await t().call('PATCH', '/api/3/empresa/1', { email: 'administracion@empresa.example' })).status, 200);
    const name = 'Consultoría y Servicios Profesionales Integrales del Mediterráneo Occidental';
    await configure(t(), { email: null, fromname: name });
    try {
      const { idfactura } = await invoiceFor(t(), 'ANA');
      const answer = await t().call('POST', `/api/3/enviarFacturaCliente/${idfactura}`, { attach: [] });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      const edited = await t().call('PATCH', `/api/3/emailsent/${answer.body.id}`, { email_from: 'ceo@bank.example', subject: 'Urgent' });
      assert.equal(edited.status, 422, JSON.stringify(edited.body));
      assert.equal(Object.values(edited.body.fields)[0], 'read-only');
      await t().app.runJob('mail-send');
      assert.deepEqual(smtp.received[0]!.from?.value[0], { address: 'administracion@empresa.example', name });
      assert.equal((await outbox(t(), answer.body.id)).estado, 'enviado');
      assert.equal((await t().call('POST', '/api/3/probarEmail', {})).status, 200, 'the test message has the same sender');
      assert.equal((await t().call('POST', '/api/3/probarEmail', { idempresa: 99 })).body.fields.idempresa, 'company-not-found');
    } finally {
      await configure(t(), { fromname: 'Acme Facturación' });
    }
  });

  it('a company group that names its own server never borrows the installation\'s login', async () => {
    const own = await t().call('POST', '/api/3/settings', { name: 'email-1', properties: { host: '127.0.0.1', port: smtp.port, enc: 'tls', lowsecure: true } });
    assert.equal(own.status, 201, JSON.stringify(own.body));
    try {
      const probe = await t().call('POST', '/api/3/probarEmail', {});
      assert.equal(probe.status, 502, JSON.stringify(probe.body));
      assert.match(probe.body.reason, /530/, 'the server asked for a login the company group does not give');
    } finally {
      await t().call('DELETE', '/api/3/settings/email-1');
    }
  });

  it('two instances emptying one outbox send each message once', async () => {
    const { idfactura } = await invoiceFor(t(), 'ANA');
    const ids: number[] = [];
    for (let i = 0; i < 12; i++) ids.push((await t().call('POST', `/api/3/enviarFacturaCliente/${idfactura}`, { attach: [], subject: `Copia ${i}` })).body.id);
    await withOtherInstance(t(), async (other) => {
      await Promise.all([t().app.runJob('mail-send'), other.app.runJob('mail-send'), t().app.runJob('mail-send'), other.app.runJob('mail-send')]);
      await Promise.all([t().app.runJob('mail-send'), other.app.runJob('mail-send')]);
    }, { config: { mail: MAIL_CONFIG } });
    const subjects = smtp.received.map((mail) => mail.subject).sort();
    assert.deepEqual(subjects, Array.from({ length: 12 }, (_, i) => `Copia ${i}`).sort());
    for (const id of ids) assert.equal((await outbox(t(), id)).estado, 'enviado');
  });
}, { config: { mail: MAIL_CONFIG } });
