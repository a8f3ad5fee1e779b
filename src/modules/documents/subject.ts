import type { DbExecutor } from '../../db/database.ts';
import type { Values } from '../../models/define-model.ts';
import { ADDRESS_FIELDS, supplierOf, supplierWithAddress } from '../contacts/index.ts';
import { customerOf, customerWithAddress } from '../customers/index.ts';
import type { DocumentReference } from './document-reference.ts';
import type { DocumentType } from './document-types.ts';

type Row = Record<string, unknown>;

/** The customer or supplier of a document, by code; undefined when there is none. */
export function subjectOf(db: DbExecutor, type: DocumentType, code: string): Promise<Row | undefined> {
  return type.side === 'sales' ? customerOf(db, code) : supplierOf(db, code);
}

/** The customer or supplier with its contact's address, in one read (a new document copies both); undefined when there is none. */
export function subjectWithAddressOf(db: DbExecutor, type: DocumentType, code: string): Promise<{ subject: Row; address?: Row } | undefined> {
  return type.side === 'sales' ? customerWithAddress(db, code) : supplierWithAddress(db, code);
}

/** Copies of the customer or supplier (and its contact's address) that a new document takes (facturascripts-model.md 3.2). */
export function subjectValues(ref: DocumentReference, type: DocumentType, subject: Row, address: Row | undefined): Values {
  const values: Values = {
    [type.subject]: subject[type.subject] as string,
    cifnif: (subject.cifnif as string | null) ?? '',
    [type.subjectName]: (subject.razonsocial as string | null) || (subject.nombre as string),
    operacion: (subject.operacion as string | null) ?? null,
  };
  if (address) for (const field of ADDRESS_FIELDS) values[field] = (address[field] as string | null) ?? null;
  if (type.side === 'sales') {
    Object.assign(values, { idcontactofact: subject.idcontactofact ?? null, idcontactoenv: subject.idcontactoenv ?? null, codagente: subject.codagente ?? null });
  }
  values.irpf = subject.codretencion ? (ref.taxes.retentions.get(String(subject.codretencion)) ?? 0) : 0;
  return values;
}
