import type { create } from 'xmlbuilder2';
import { lazyLibrary } from '../../lazy-library.ts';
import { compactIban, textOf } from '../../models/record-rules.ts';
import { sepaIdentifier, sepaText } from './sepa-text.ts';

const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');
type XmlNode = ReturnType<typeof create>;

type Row = Record<string, unknown>;

/** What a remittance's file says of the creditor: its name, account, bank and identifier. */
export interface Creditor {
  name: string;
  iban: string;
  bic: string | null;
  identifier: string;
}

const cents = (amount: number) => Math.round(amount * 100);
const amountText = (centsValue: number) => (centsValue / 100).toFixed(2);

/** A bank: its BIC (`BIC` in .02, `BICFI` in .08), or the agreed `NOTPROVIDED` when unknown (IBAN-only). */
function agent(parent: XmlNode, name: string, bic: string | null, version: string): void {
  const institution = parent.ele(name).ele('FinInstnId');
  if (bic) institution.ele(version === '001.02' ? 'BIC' : 'BICFI').txt(bic);
  else institution.ele('Othr').ele('Id').txt('NOTPROVIDED');
}

/**
 * The remittance as a pain.008 direct-debit initiation (001.02 or 001.08; sepa.md sections 1-8):
 * one payment block per sequence type (one collection date per remittance), CORE scheme, SLEV
 * charges, the creditor identifier in every block, each receipt a transaction with its mandate,
 * end-to-end id and the invoice in its remittance information; counts and control sums in cents.
 */
export function pain008(remittance: Row, receipts: Row[], creditor: Creditor, createdAt: string): string {
  const version = textOf(remittance.version) || '001.02';
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele(`urn:iso:std:iso:20022:tech:xsd:pain.008.${version}`, 'Document').ele('CstmrDrctDbtInitn');
  const total = receipts.reduce((sum, receipt) => sum + cents(Number(receipt.importe)), 0);
  const msgId = sepaIdentifier(`REM-${textOf(remittance.idremesa)}-${createdAt.replace(/\D/g, '').slice(0, 14)}`);
  const header = root.ele('GrpHdr');
  header.ele('MsgId').txt(msgId);
  header.ele('CreDtTm').txt(createdAt);
  header.ele('NbOfTxs').txt(String(receipts.length));
  header.ele('CtrlSum').txt(amountText(total));
  header.ele('InitgPty').ele('Nm').txt(sepaText(creditor.name, 70));
  for (const sequence of ['FRST', 'RCUR']) {
    const block = receipts.filter((receipt) => receipt.secuencia === sequence);
    if (!block.length) continue;
    const info = root.ele('PmtInf');
    info.ele('PmtInfId').txt(sepaIdentifier(`${msgId}-${sequence}`));
    info.ele('PmtMtd').txt('DD');
    info.ele('NbOfTxs').txt(String(block.length));
    info.ele('CtrlSum').txt(amountText(block.reduce((sum, receipt) => sum + cents(Number(receipt.importe)), 0)));
    const type = info.ele('PmtTpInf');
    type.ele('SvcLvl').ele('Cd').txt('SEPA');
    type.ele('LclInstrm').ele('Cd').txt('CORE');
    type.ele('SeqTp').txt(sequence);
    info.ele('ReqdColltnDt').txt(textOf(remittance.fechacargo));
    info.ele('Cdtr').ele('Nm').txt(sepaText(creditor.name, 70));
    info.ele('CdtrAcct').ele('Id').ele('IBAN').txt(compactIban(creditor.iban));
    agent(info, 'CdtrAgt', creditor.bic, version);
    info.ele('ChrgBr').txt('SLEV');
    const scheme = info.ele('CdtrSchmeId').ele('Id').ele('PrvtId').ele('Othr');
    scheme.ele('Id').txt(creditor.identifier);
    scheme.ele('SchmeNm').ele('Prtry').txt('SEPA');
    for (const receipt of block) {
      const tx = info.ele('DrctDbtTxInf');
      tx.ele('PmtId').ele('EndToEndId').txt(textOf(receipt.endtoend));
      tx.ele('InstdAmt', { Ccy: 'EUR' }).txt(amountText(cents(Number(receipt.importe))));
      const mandate = tx.ele('DrctDbtTx').ele('MndtRltdInf');
      mandate.ele('MndtId').txt(textOf(receipt.mandato));
      mandate.ele('DtOfSgntr').txt(textOf(receipt.fmandato));
      agent(tx, 'DbtrAgt', receipt.bic ? textOf(receipt.bic) : null, version);
      tx.ele('Dbtr').ele('Nm').txt(sepaText(textOf(receipt.nombre) || textOf(receipt.codcliente), 70) || 'NOTPROVIDED');
      tx.ele('DbtrAcct').ele('Id').ele('IBAN').txt(textOf(receipt.iban));
      if (receipt.concepto) tx.ele('RmtInf').ele('Ustrd').txt(textOf(receipt.concepto));
    }
  }
  return doc.end({ prettyPrint: true });
}
