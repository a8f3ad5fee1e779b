/**
 * The built-in texts of the seven languages the PDF speaks, used where `emails_notifications`
 * holds no enabled template of the name (docs/email.md, "Templates"). `{name}` placeholders are
 * filled by fill-template.ts.
 */
export interface MailTexts {
  documentSubject: string;
  documentBody: string;
  reminderSubject: string;
  reminderBody: string;
}

export const DEFAULT_TEXTS: Readonly<Record<string, MailTexts>> = {
  es: {
    documentSubject: '{documento} {codigo} - {empresa}',
    documentBody: 'Hola {destinatario}:\n\nLe enviamos {documento} {codigo} con fecha {fecha} por un importe de {total} {coddivisa}.\n\nSaludos,\n{empresa}',
    reminderSubject: 'Recordatorio de pago: {codigofactura} - {empresa}',
    reminderBody: 'Hola {destinatario}:\n\nEl recibo {numero} de la factura {codigofactura}, por {importe} {coddivisa}, venció el {vencimiento} y sigue pendiente de pago. Le adjuntamos la factura.\n\nSi ya lo ha pagado, no tenga en cuenta este mensaje.\n\nSaludos,\n{empresa}',
  },
  en: {
    documentSubject: '{documento} {codigo} - {empresa}',
    documentBody: 'Hello {destinatario},\n\nPlease find attached {documento} {codigo} dated {fecha} for {total} {coddivisa}.\n\nKind regards,\n{empresa}',
    reminderSubject: 'Payment reminder: {codigofactura} - {empresa}',
    reminderBody: 'Hello {destinatario},\n\nInstalment {numero} of invoice {codigofactura}, for {importe} {coddivisa}, was due on {vencimiento} and is still unpaid. The invoice is attached.\n\nIf you have already paid it, please disregard this message.\n\nKind regards,\n{empresa}',
  },
  ca: {
    documentSubject: '{documento} {codigo} - {empresa}',
    documentBody: 'Hola {destinatario}:\n\nUs enviem {documento} {codigo} amb data {fecha} per un import de {total} {coddivisa}.\n\nSalutacions,\n{empresa}',
    reminderSubject: 'Recordatori de pagament: {codigofactura} - {empresa}',
    reminderBody: "Hola {destinatario}:\n\nEl rebut {numero} de la factura {codigofactura}, per {importe} {coddivisa}, va vèncer el {vencimiento} i encara està pendent de pagament. Us adjuntem la factura.\n\nSi ja l'heu pagat, no tingueu en compte aquest missatge.\n\nSalutacions,\n{empresa}",
  },
  fr: {
    documentSubject: '{documento} {codigo} - {empresa}',
    documentBody: "Bonjour {destinatario},\n\nVeuillez trouver ci-joint {documento} {codigo} du {fecha} d'un montant de {total} {coddivisa}.\n\nCordialement,\n{empresa}",
    reminderSubject: 'Rappel de paiement : {codigofactura} - {empresa}',
    reminderBody: "Bonjour {destinatario},\n\nL'échéance {numero} de la facture {codigofactura}, d'un montant de {importe} {coddivisa}, était due le {vencimiento} et reste impayée. La facture est jointe.\n\nSi vous l'avez déjà réglée, merci de ne pas tenir compte de ce message.\n\nCordialement,\n{empresa}",
  },
  de: {
    documentSubject: '{documento} {codigo} - {empresa}',
    documentBody: 'Guten Tag {destinatario},\n\nanbei erhalten Sie {documento} {codigo} vom {fecha} über {total} {coddivisa}.\n\nMit freundlichen Grüßen\n{empresa}',
    reminderSubject: 'Zahlungserinnerung: {codigofactura} - {empresa}',
    reminderBody: 'Guten Tag {destinatario},\n\ndie Rate {numero} der Rechnung {codigofactura} über {importe} {coddivisa} war am {vencimiento} fällig und ist noch offen. Die Rechnung finden Sie im Anhang.\n\nFalls Sie bereits bezahlt haben, betrachten Sie diese Nachricht bitte als gegenstandslos.\n\nMit freundlichen Grüßen\n{empresa}',
  },
  it: {
    documentSubject: '{documento} {codigo} - {empresa}',
    documentBody: 'Gentile {destinatario},\n\nin allegato trova {documento} {codigo} del {fecha} per un importo di {total} {coddivisa}.\n\nCordiali saluti,\n{empresa}',
    reminderSubject: 'Sollecito di pagamento: {codigofactura} - {empresa}',
    reminderBody: 'Gentile {destinatario},\n\nla rata {numero} della fattura {codigofactura}, di {importe} {coddivisa}, è scaduta il {vencimiento} e risulta ancora da pagare. In allegato la fattura.\n\nSe ha già provveduto al pagamento, non tenga conto di questo messaggio.\n\nCordiali saluti,\n{empresa}',
  },
  pt: {
    documentSubject: '{documento} {codigo} - {empresa}',
    documentBody: 'Olá {destinatario},\n\nSegue em anexo {documento} {codigo} de {fecha} no valor de {total} {coddivisa}.\n\nCom os melhores cumprimentos,\n{empresa}',
    reminderSubject: 'Lembrete de pagamento: {codigofactura} - {empresa}',
    reminderBody: 'Olá {destinatario},\n\nA prestação {numero} da fatura {codigofactura}, no valor de {importe} {coddivisa}, venceu em {vencimiento} e continua por pagar. Segue a fatura em anexo.\n\nSe já efetuou o pagamento, ignore esta mensagem.\n\nCom os melhores cumprimentos,\n{empresa}',
  },
};

/** The template names: the reference's `sendmail-<Doc>` is Spanish; other languages add `-<lang>`. */
export const documentTemplateName = (documentType: string, lang: string): string => `sendmail-${documentType}${lang === 'es' ? '' : `-${lang}`}`;
export const reminderTemplateName = (lang: string): string => `reminder${lang === 'es' ? '' : `-${lang}`}`;
