import { randomUUID } from 'node:crypto';
import { defineModel } from '../models/define-model.ts';
import { f } from '../models/fields.ts';
import type { Database, DbExecutor } from './database.ts';
import { inTransaction } from './transaction.ts';

/**
 * The idempotency keys of write requests (src/http/idempotency.ts), shared by every instance on
 * the database: per scope (the API key that sent it, or `global`) and key, the request's
 * fingerprint, its state and, once answered, the answer to replay byte for byte.
 *
 * States: `running` (claimed; its request has not answered), `written` (its write committed before
 * its answer was known: the answer follows, or was lost in a crash), `done` (answer stored).
 */
export const idempotencyKeyModel = defineModel({
  name: 'ApiIdempotencyKey',
  table: 'api_idempotency_keys',
  internal: true,
  fields: {
    id: f.serial(),
    ambito: f.string(64, { notNull: true }),
    clave: f.string(255, { notNull: true }),
    huella: f.string(64, { notNull: true }),
    estado: f.string(10, { notNull: true }),
    /** Which claim holds the key: a request taken over after its lease can no longer store or free it. */
    dueno: f.string(36, { notNull: true, default: '' }),
    status: f.integer(),
    cabeceras: f.text(),
    cuerpo: f.binary(),
    /** Epoch milliseconds: when the key was claimed (a `running` claim older than the lease may be taken over). */
    creado: f.double({ notNull: true }),
  },
  unique: [['ambito', 'clave']],
  indexes: [['creado']],
});

const TABLE = idempotencyKeyModel.table;

/** A stored answer: what a replay sends. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** A claimed key: its row and the claim's own token. */
export interface ClaimedKey {
  id: number;
  owner: string;
}

export type Claim =
  | ({ kind: 'claimed' } & ClaimedKey)
  | { kind: 'replay'; answer: StoredAnswer }
  | { kind: 'in-use' }
  | { kind: 'reused' }
  | { kind: 'lost' };

/**
 * Claims `clave` in `ambito` for a request with `huella`, in its own transaction: a new key is
 * claimed; the same request finds its answer (replay), or its first run still going (in use), or
 * its write committed without an answer (lost); another request with the key is `reused`. A claim
 * older than `leaseMs` whose request never answered (its process died before committing) is taken
 * over (with a new owner token: the old request can then neither store nor free it).
 */
export async function claimKey(database: Database, ambito: string, clave: string, huella: string, now: number, leaseMs: number): Promise<Claim> {
  const owner = randomUUID();
  return inTransaction(database, async (trx) => {
    const read = () => database.dialect.locking(trx.selectFrom(TABLE).selectAll().where('ambito', '=', ambito).where('clave', '=', clave)).executeTakeFirst();
    let row = await read();
    if (!row) {
      const inserted = await database.dialect.insertIgnore(trx.insertInto(TABLE).values({ ambito, clave, huella, estado: 'running', dueno: owner, creado: now }), ['ambito', 'clave']).executeTakeFirst();
      row = await read();
      if (row && Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { kind: 'claimed', id: Number(row.id), owner };
    }
    if (!row) return { kind: 'in-use' };
    if (row.huella !== huella) return { kind: 'reused' };
    if (row.estado === 'done') {
      return { kind: 'replay', answer: { status: Number(row.status), headers: JSON.parse(String(row.cabeceras ?? '{}')) as Record<string, string>, body: Buffer.from(row.cuerpo as Uint8Array) } };
    }
    if (row.estado === 'written') return { kind: 'lost' };
    if (Number(row.creado) < now - leaseMs) {
      await trx.updateTable(TABLE).set({ creado: now, dueno: owner }).where('id', '=', Number(row.id)).execute();
      return { kind: 'claimed', id: Number(row.id), owner };
    }
    return { kind: 'in-use' };
  });
}

/** Thrown when a claim was taken over (its lease ran out): its write must not commit. */
export class ClaimLost extends Error {
  override name = 'ClaimLost';
}

async function updateOwn(db: DbExecutor, claim: ClaimedKey, values: Record<string, unknown>): Promise<void> {
  const result = await db.updateTable(TABLE).set(values).where('id', '=', claim.id).where('dueno', '=', claim.owner).executeTakeFirst();
  if (!Number(result.numUpdatedRows)) throw new ClaimLost(`idempotency key ${claim.id} was taken over`);
}

/** Stores a claimed key's answer (in the request's held transaction, or on its own); refused (ClaimLost) when the claim was taken over. */
export async function storeAnswer(db: DbExecutor, claim: ClaimedKey, answer: StoredAnswer): Promise<void> {
  await updateOwn(db, claim, { estado: 'done', status: answer.status, cabeceras: JSON.stringify(answer.headers), cuerpo: answer.body });
}

/** Marks a claimed key's write committed, its answer not yet stored; refused (ClaimLost) when the claim was taken over. */
export async function markWritten(db: DbExecutor, claim: ClaimedKey): Promise<void> {
  await updateOwn(db, claim, { estado: 'written' });
}

/** Gives a claimed key up (its request failed in a way the client may retry): the key is free again. */
export async function releaseKey(db: DbExecutor, claim: ClaimedKey): Promise<void> {
  await db.deleteFrom(TABLE).where('id', '=', claim.id).where('dueno', '=', claim.owner).where('estado', '=', 'running').execute();
}

/** Deletes keys claimed before `before` (epoch ms); returns how many. */
export async function pruneKeys(db: DbExecutor, before: number): Promise<number> {
  const result = await db.deleteFrom(TABLE).where('creado', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
