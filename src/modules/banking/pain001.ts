import { compactIban, textOf } from '../../models/record-rules.ts';
import { sepaIdentifier, sepaText } from './sepa-text.ts';
import { agent, cents, euroAmount, groupHeader, ibanAccount, messageId, party, paymentBlock, remittanceText, sepaDocument } from './sepa-xml.ts';

/** The pain.001 versions written: 001.03 (ISO 2009, `BIC`) and 001.09 (ISO 2019, `BICFI`, the 2023 EPC rulebooks). */
export type Pain001Version = '001.03' | '001.09';

/** A transfer batch: its id (in the message id), requested execution date (`YYYY-MM-DD`) and file version. */
export interface TransferBatch {
  id: string | number;
  fechaejecucion: string;
  version: Pain001Version;
}

/** One payment to a supplier: amount in euros, the supplier's account, bank (null when unknown), name, end-to-end reference and remittance text. */
export interface TransferPayment {
  importe: number;
  iban: string;
  bic: string | null;
  nombre: string;
  endtoend: string;
  concepto: string | null;
}

/** The company paying: its name, the account debited and its bank (null when unknown). */
export interface Debtor {
  name: string;
  iban: string;
  bic: string | null;
}

/** The EPC's limits on one SCT amount, in cents: 0.01 to 999 999 999.99 (sepa.md section 1). */
const MIN_CENTS = 1;
const MAX_CENTS = 99_999_999_999;

/** A BIC as the schemas' patterns want it (upper case, no spaces), or null when none is given. */
const bicOf = (bic: string | null): string | null => bic?.replace(/\s+/g, '').toUpperCase() || null;

/**
 * The batch as a SEPA credit-transfer initiation (pain.001, 001.03 or 001.09): one payment block
 * (TRF, batch booking, SEPA service level, the execution date, the debtor's name, account and
 * bank, SLEV charges), each payment a transaction with its end-to-end id, amount in EUR, the
 * creditor's bank when known (optional in both versions, and the EPC lets IBAN-only transfers
 * leave it out), name, IBAN and remittance text. Counts and control sums add up in cents; text
 * goes through the SEPA character set. The caller checks IBANs and BICs; an amount outside the
 * EPC's range, or a batch without payments, is a programming error (RangeError), never a file.
 */
export function pain001(batch: TransferBatch, payments: TransferPayment[], debtor: Debtor, createdAt: string): string {
  if (!payments.length) throw new RangeError('pain.001: a batch without payments');
  const amounts = payments.map((payment) => cents(payment.importe));
  const wrong = amounts.findIndex((amount) => !(amount >= MIN_CENTS && amount <= MAX_CENTS));
  if (wrong >= 0) throw new RangeError(`pain.001: payment ${wrong} amount ${payments[wrong]!.importe} outside 0.01..999999999.99`);
  const total = amounts.reduce((sum, amount) => sum + amount, 0);

  const file = sepaDocument(`pain.001.${batch.version}`, 'CstmrCdtTrfInitn');
  const msgId = messageId('TRF', textOf(batch.id), createdAt);
  groupHeader(file, { msgId, createdAt, count: payments.length, totalCents: total, initiator: debtor.name });
  const { info } = paymentBlock(file, { id: sepaIdentifier(`${msgId}-1`), method: 'TRF', batchBooking: true, count: payments.length, totalCents: total });
  // A plain ISO date in 001.03; a choice of date or date-time (`Dt` / `DtTm`) in 001.09.
  if (batch.version === '001.03') info.ele('ReqdExctnDt').txt(batch.fechaejecucion);
  else info.ele('ReqdExctnDt').ele('Dt').txt(batch.fechaejecucion);
  party(info, 'Dbtr', debtor.name);
  ibanAccount(info, 'DbtrAcct', compactIban(debtor.iban));
  // The debtor's bank is mandatory in both versions: NOTPROVIDED stands for an unknown BIC.
  agent(info, 'DbtrAgt', bicOf(debtor.bic), file);
  info.ele('ChrgBr').txt('SLEV');
  payments.forEach((payment, index) => {
    const tx = info.ele('CdtTrfTxInf');
    tx.ele('PmtId').ele('EndToEndId').txt(sepaIdentifier(payment.endtoend));
    euroAmount(tx.ele('Amt'), amounts[index]!);
    const bic = bicOf(payment.bic);
    if (bic) agent(tx, 'CdtrAgt', bic, file);
    party(tx, 'Cdtr', payment.nombre, 'NOTPROVIDED');
    ibanAccount(tx, 'CdtrAcct', compactIban(payment.iban));
    remittanceText(tx, sepaText(payment.concepto ?? '', 140));
  });
  return file.end();
}
