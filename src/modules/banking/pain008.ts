import { compactIban, textOf } from '../../models/record-rules.ts';
import { sepaIdentifier } from './sepa-text.ts';
import { agent, cents, euroAmount, groupHeader, ibanAccount, messageId, party, paymentBlock, remittanceText, sepaDocument, totalCents } from './sepa-xml.ts';

type Row = Record<string, unknown>;

/** What a remittance's file says of the creditor: its name, account, bank and identifier. */
export interface Creditor {
  name: string;
  iban: string;
  bic: string | null;
  identifier: string;
}

/**
 * The remittance as a pain.008 direct-debit initiation (001.02 or 001.08; sepa.md sections 1-8):
 * one payment block per sequence type (one collection date per remittance), CORE scheme, SLEV
 * charges, the creditor identifier in every block, each receipt a transaction with its mandate,
 * end-to-end id and the invoice in its remittance information; counts and control sums in cents.
 */
export function pain008(remittance: Row, receipts: Row[], creditor: Creditor, createdAt: string): string {
  const file = sepaDocument(`pain.008.${textOf(remittance.version) || '001.02'}`, 'CstmrDrctDbtInitn');
  const amountsOf = (rows: Row[]) => rows.map((receipt) => Number(receipt.importe));
  const msgId = messageId('REM', textOf(remittance.idremesa), createdAt);
  groupHeader(file, { msgId, createdAt, count: receipts.length, totalCents: totalCents(amountsOf(receipts)), initiator: creditor.name });
  for (const sequence of ['FRST', 'RCUR']) {
    const block = receipts.filter((receipt) => receipt.secuencia === sequence);
    if (!block.length) continue;
    const { info, type } = paymentBlock(file, { id: sepaIdentifier(`${msgId}-${sequence}`), method: 'DD', count: block.length, totalCents: totalCents(amountsOf(block)) });
    type.ele('LclInstrm').ele('Cd').txt('CORE');
    type.ele('SeqTp').txt(sequence);
    info.ele('ReqdColltnDt').txt(textOf(remittance.fechacargo));
    party(info, 'Cdtr', creditor.name);
    ibanAccount(info, 'CdtrAcct', compactIban(creditor.iban));
    agent(info, 'CdtrAgt', creditor.bic, file);
    info.ele('ChrgBr').txt('SLEV');
    const scheme = info.ele('CdtrSchmeId').ele('Id').ele('PrvtId').ele('Othr');
    scheme.ele('Id').txt(creditor.identifier);
    scheme.ele('SchmeNm').ele('Prtry').txt('SEPA');
    for (const receipt of block) {
      const tx = info.ele('DrctDbtTxInf');
      tx.ele('PmtId').ele('EndToEndId').txt(textOf(receipt.endtoend));
      euroAmount(tx, cents(Number(receipt.importe)));
      const mandate = tx.ele('DrctDbtTx').ele('MndtRltdInf');
      mandate.ele('MndtId').txt(textOf(receipt.mandato));
      mandate.ele('DtOfSgntr').txt(textOf(receipt.fmandato));
      // The debtor's bank is mandatory in both versions: NOTPROVIDED stands for an unknown BIC.
      agent(tx, 'DbtrAgt', receipt.bic ? textOf(receipt.bic) : null, file);
      party(tx, 'Dbtr', textOf(receipt.nombre) || textOf(receipt.codcliente), 'NOTPROVIDED');
      ibanAccount(tx, 'DbtrAcct', textOf(receipt.iban));
      remittanceText(tx, textOf(receipt.concepto));
    }
  }
  return file.end();
}
