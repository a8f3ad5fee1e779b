import assert from 'node:assert/strict';
import { it } from 'node:test';
import { formatAddresses, parseAddresses } from '../../src/modules/mail/addresses.ts';
import { fillTemplate, localValue } from '../../src/modules/mail/fill-template.ts';
import { mailSettingsProblems } from '../../src/modules/mail/mail-settings.ts';
import { levelReached } from '../../src/modules/mail/payment-reminders.ts';

it('reads address lists as clients write them, and refuses what could break a header', () => {
  const cases: Array<[unknown, unknown]> = [
    [undefined, []],
    ['', []],
    ['ana@example.com', [{ name: '', address: 'ana@example.com' }]],
    ['Ana López <ana@example.com>; bob@example.org', [{ name: 'Ana López', address: 'ana@example.com' }, { name: '', address: 'bob@example.org' }]],
    [['"Bea, S.L." <bea@example.es>'], 'invalid-email'],
    [['Bea <bea@example.es>', 'c@example.es,'], [{ name: 'Bea', address: 'bea@example.es' }, { name: '', address: 'c@example.es' }]],
    ['ana@example', 'invalid-email'],
    ['ana@@example.com', 'invalid-email'],
    ['ana example.com', 'invalid-email'],
    ['ana@example.com\r\nBcc: x@example.com', 'header-injection'],
    ['ana@example.com\nx', 'header-injection'],
    ['Ana <ana@example.com>\u0000', 'header-injection'],
    [42, 'invalid-value'],
    [[null], 'invalid-value'],
  ];
  for (const [input, expected] of cases) assert.deepEqual(parseAddresses(input), expected, JSON.stringify(input));
  assert.equal(formatAddresses([{ name: 'Ana "La" López', address: 'ana@example.com' }, { name: '', address: 'b@example.com' }]), 'Ana La López <ana@example.com>, b@example.com');
});

it('reaches the highest reminder level whose day has come, counting from the due date', () => {
  const cases: Array<[string, string, number[], number | undefined]> = [
    ['2026-01-31', '2026-02-06', [7, 30], undefined],
    ['2026-01-31', '2026-02-07', [7, 30], 7],
    ['2026-01-31', '2026-03-01', [7, 30], 7],
    ['2026-01-31', '2026-03-02', [7, 30], 30],
    ['2024-02-22', '2024-02-29', [7], 7],
    ['2026-12-25', '2027-01-01', [7, 30], 7],
    ['2026-12-25', '2027-12-31', [7, 30, 90], 90],
    ['2026-01-01', '2026-12-31', [], undefined],
  ];
  for (const [due, today, days, expected] of cases) assert.equal(levelReached(due, today, days), expected, `${due} ${today} ${days}`);
});

it('fills placeholders, writes amounts and dates as the language does, and keeps control characters out of the subject', () => {
  assert.equal(localValue(1234.5, 'es', 'amount'), '1234,50');
  assert.equal(localValue(12345.5, 'es', 'amount'), '12.345,50');
  assert.equal(localValue(1234.5, 'en', 'amount'), '1,234.50');
  assert.equal(localValue(1234.5, 'de', 'amount'), '1.234,50');
  assert.equal(localValue('2026-01-31', 'es', 'date'), '31/01/2026');
  assert.equal(localValue('2026-01-31', 'en', 'date'), '31/01/2026');
  assert.equal(localValue(null, 'es', 'amount'), '');
  const filled = fillTemplate('{documento} {codigo}', 'Hola {destinatario}:\n\n<b>{total}</b> {desconocido}\nfin', { documento: 'Factura', codigo: 'F1', destinatario: 'Ana & Co', total: '10,00' });
  assert.equal(filled.subject, 'Factura F1');
  assert.equal(filled.text, 'Hola Ana & Co:\n\n<b>10,00</b> {desconocido}\nfin');
  assert.match(filled.html, /<p>Hola Ana &#38; Co:<\/p>\n<p>&#60;b&#62;10,00&#60;\/b&#62; \{desconocido\}<br>fin<\/p>/);
  assert.equal(fillTemplate('Factura {nombre}', '', { nombre: 'Ana\r\nBcc: x@example.com' }).subject, 'Factura Ana Bcc: x@example.com');
});

it('names each e-mail setting it could not send with', () => {
  assert.deepEqual({ ...mailSettingsProblems({ host: 'smtp.example.com', port: 587, enc: 'tls', email: 'a@example.com', reminderdays: '7, 30', lowsecure: false }) }, {});
  assert.deepEqual({ ...mailSettingsProblems({ host: 'smtp example', port: 0, enc: 'x', email: 'a@b.example, c@d.example', replyto: 'nope', lowsecure: 'yes', reminderdays: [0] }) }, {
    'properties.host': 'invalid-host', 'properties.port': 'invalid-port', 'properties.enc': 'invalid-value', 'properties.email': 'too-many-recipients',
    'properties.replyto': 'invalid-email', 'properties.lowsecure': 'invalid-value', 'properties.reminderdays': 'invalid-value',
  });
  assert.deepEqual({ ...mailSettingsProblems({ fromname: 'A\nB', password: 'p\nq' }) }, { 'properties.fromname': 'header-injection' });
});
