import type { SaveContext, Values } from '../../models/define-model.ts';
import { toDbValues } from '../../db/row-codec.ts';
import { validationError } from '../../errors.ts';
import { hasText } from '../../models/record-rules.ts';
import { contactoModel } from './contact-model.ts';
import { insertedId } from '../../db/inserted-id.ts';

/** What a new customer or supplier is: its code column and value, and the fields its contact copies. */
export interface ContactOwner {
  owner: { codcliente: string } | { codproveedor: string };
  nombre: string;
  apellidos?: string;
  razonsocial?: unknown;
  cifnif?: unknown;
  email?: unknown;
  telefono1?: unknown;
  telefono2?: unknown;
}

const text = (value: unknown): string | null => (hasText(value) ? value : null);

/**
 * The contact (address) of a customer or supplier being created (Cliente::saveInsert,
 * Proveedor::saveInsert; facturascripts-model.md 2.3), in the creation's transaction: `nombre`,
 * `apellidos`, `descripcion` = the owner's name, `empresa` = its `razonsocial`, its tax id, e-mail
 * and phones, the owner's code, and the contact model's own defaults and rules (the installation's
 * country, `fechaalta`). Returns the new `idcontacto`.
 */
export async function addOwnerContact(ctx: Pick<SaveContext, 'db' | 'dialect' | 'clock' | 'reveal'>, owner: ContactOwner): Promise<number> {
  const { db, dialect, clock } = ctx;
  const values: Values = {
    ...owner.owner,
    nombre: owner.nombre.slice(0, 100),
    apellidos: text(owner.apellidos),
    descripcion: [owner.nombre, owner.apellidos].filter(hasText).join(' ').slice(0, 100),
    empresa: text(owner.razonsocial),
    cifnif: text(owner.cifnif),
    email: text(owner.email),
    telefono1: text(owner.telefono1),
    telefono2: text(owner.telefono2),
  };
  for (const [name, field] of Object.entries(contactoModel.fields)) if (values[name] === undefined && field.initial) values[name] = field.initial(clock);
  await contactoModel.hooks!.beforeSave!({ ...ctx, model: contactoModel, values, existing: undefined });
  const errors = contactoModel.validate?.(values, undefined) ?? {};
  if (Object.keys(errors).length) throw validationError(Object.fromEntries(Object.entries(errors).map(([name, reason]) => [`contacto.${name}`, reason])));
  const insert = db.insertInto(contactoModel.table).values(toDbValues(dialect.engine, contactoModel, values));
  return insertedId(dialect.engine, insert, 'idcontacto');
}
