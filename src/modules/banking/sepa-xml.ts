import type { create } from 'xmlbuilder2';
import { lazyLibrary } from '../../lazy-library.ts';
import { sepaIdentifier, sepaText } from './sepa-text.ts';

/**
 * The pieces every SEPA initiation file (pain.008 direct debits, pain.001 transfers) writes the
 * same way: the document in its message's namespace, the group header, the head of a payment
 * block, banks, parties, accounts and amounts. Each writer keeps only what its message alone has.
 */

const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');

/** An element of the file being written. */
export type XmlNode = ReturnType<typeof create>;

/** The messages of ISO 20022's 2009 generation, which name a bank's BIC `BIC`; the 2019 ones (pain.008.001.08, pain.001.001.09) say `BICFI`. */
const BIC_2009_MESSAGES = new Set(['pain.008.001.02', 'pain.001.001.03']);

/** An amount in whole cents: the unit counts and control sums add up in, so that no float error reaches a file. */
export const cents = (amount: number): number => Math.round(amount * 100);

/** Whole cents as a SEPA amount: two decimals, a point. */
const amountText = (centsValue: number): string => (centsValue / 100).toFixed(2);

/** The sum of amounts, in whole cents (each rounded to the cent first). */
export const totalCents = (amounts: number[]): number => amounts.reduce((sum, amount) => sum + cents(amount), 0);

/** A message id, unique per file: `<prefix>-<id>-<creation time's digits to the second>`, as a SEPA identifier. */
export const messageId = (prefix: string, id: string | number, createdAt: string): string =>
  sepaIdentifier(`${prefix}-${id}-${createdAt.replace(/\D/g, '').slice(0, 14)}`);

/** A SEPA file being written: the message's root element, its name (which says how banks are named), and the finished text. */
export interface SepaDocument {
  message: string;
  root: XmlNode;
  end(): string;
}

/** A UTF-8 file (no byte-order mark) whose `Document` is in `message`'s namespace (e.g. `pain.001.001.09`), holding `rootName`. */
export function sepaDocument(message: string, rootName: string): SepaDocument {
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele(`urn:iso:std:iso:20022:tech:xsd:${message}`, 'Document').ele(rootName);
  return { message, root, end: () => doc.end({ prettyPrint: true }) };
}

/** The group header: message id, creation time, the file's transaction count and control sum, and the initiating party. */
export function groupHeader(file: SepaDocument, header: { msgId: string; createdAt: string; count: number; totalCents: number; initiator: string }): void {
  const node = file.root.ele('GrpHdr');
  node.ele('MsgId').txt(header.msgId);
  node.ele('CreDtTm').txt(header.createdAt);
  node.ele('NbOfTxs').txt(String(header.count));
  node.ele('CtrlSum').txt(amountText(header.totalCents));
  party(node, 'InitgPty', header.initiator);
}

/**
 * The head of a payment block (`PmtInf`) up to its payment type, whose service level is `SEPA`:
 * id, method (`DD` or `TRF`), batch booking when asked, count and control sum. Answers the block
 * and its `PmtTpInf`, for the writer to go on with (local instrument, sequence; then dates, parties).
 */
export function paymentBlock(file: SepaDocument, block: { id: string; method: 'DD' | 'TRF'; batchBooking?: boolean; count: number; totalCents: number }): { info: XmlNode; type: XmlNode } {
  const info = file.root.ele('PmtInf');
  info.ele('PmtInfId').txt(block.id);
  info.ele('PmtMtd').txt(block.method);
  if (block.batchBooking !== undefined) info.ele('BtchBookg').txt(String(block.batchBooking));
  info.ele('NbOfTxs').txt(String(block.count));
  info.ele('CtrlSum').txt(amountText(block.totalCents));
  const type = info.ele('PmtTpInf');
  type.ele('SvcLvl').ele('Cd').txt('SEPA');
  return { info, type };
}

/**
 * A bank (`DbtrAgt`, `CdtrAgt`): its BIC (`BIC` in the 2009 messages, `BICFI` in the 2019 ones),
 * or the agreed `Othr/Id` `NOTPROVIDED` when unknown (IBAN-only, sepa.md section 6) where the
 * schema makes the element mandatory. Where it is optional, the writer may rather leave it out.
 */
export function agent(parent: XmlNode, element: string, bic: string | null, file: SepaDocument): void {
  const institution = parent.ele(element).ele('FinInstnId');
  if (bic) institution.ele(BIC_2009_MESSAGES.has(file.message) ? 'BIC' : 'BICFI').txt(bic);
  else institution.ele('Othr').ele('Id').txt('NOTPROVIDED');
}

/** A party by name (`Nm`): in the SEPA character set, cut to the EPC's 70 characters; `fallback` when nothing is left. */
export function party(parent: XmlNode, element: string, name: string, fallback = ''): void {
  parent.ele(element).ele('Nm').txt(sepaText(name, 70) || fallback);
}

/** An account by IBAN (`DbtrAcct`, `CdtrAcct`), written as given: the caller passes it compact and upper-case. */
export function ibanAccount(parent: XmlNode, element: string, iban: string): void {
  parent.ele(element).ele('Id').ele('IBAN').txt(iban);
}

/** `InstdAmt` in euros, the only SEPA currency. */
export function euroAmount(parent: XmlNode, centsValue: number): void {
  parent.ele('InstdAmt', { Ccy: 'EUR' }).txt(amountText(centsValue));
}

/** The remittance information as one unstructured text (`RmtInf/Ustrd`, EPC: at most 140 characters), left out when empty; written as given. */
export function remittanceText(parent: XmlNode, text: string): void {
  if (text) parent.ele('RmtInf').ele('Ustrd').txt(text);
}
