import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import type { Values } from '../../models/define-model.ts';
import { contactOf, supplierOf } from '../contacts/index.ts';
import { customerOf } from '../customers/index.ts';
import type { DocumentReference } from './document-reference.ts';
import type { DocumentType } from './document-types.ts';

type Row = Record<string, unknown>;

/**
 * The customer or supplier of a document, by code; undefined when there is none. With `locking`,
 * a customer's row stays locked until the transaction ends (the first lock of a new sales
 * document: customer-risk.ts).
 */
export function subjectOf(db: DbExecutor, type: DocumentType, code: string, locking?: SqlDialect): Promise<Row | undefined> {
  return type.side === 'sales' ? customerOf(db, code, locking) : supplierOf(db, code);
}

/** Copies of the customer or supplier that a new document takes (facturascripts-model.md 3.2). */
export async function subjectDefaults(db: DbExecutor, ref: DocumentReference, type: DocumentType, subject: Row): Promise<Values> {
  const values: Values = {
    [type.subject]: subject[type.subject] as string,
    cifnif: (subject.cifnif as string | null) ?? '',
    [type.subjectName]: (subject.razonsocial as string | null) || (subject.nombre as string),
    operacion: (subject.operacion as string | null) ?? null,
  };
  const contactId = type.side === 'sales' ? subject.idcontactofact : subject.idcontacto;
  if (contactId !== null && contactId !== undefined) {
    const contact = await contactOf(db, Number(contactId));
    if (contact) {
      for (const field of ['codpais', 'provincia', 'ciudad', 'direccion', 'codpostal', 'apartado']) values[field] = (contact[field] as string | null) ?? null;
    }
  }
  if (type.side === 'sales') {
    Object.assign(values, { idcontactofact: subject.idcontactofact ?? null, idcontactoenv: subject.idcontactoenv ?? null, codagente: subject.codagente ?? null });
  }
  values.irpf = subject.codretencion ? (ref.taxes.retentions.get(String(subject.codretencion)) ?? 0) : 0;
  return values;
}
