import type { DatabaseConnection, OperationNode, RootOperationNode } from 'kysely';

/**
 * Which tables this instance has written to, as a generation per table: moved when a statement
 * that writes the table runs, and again when its transaction ends (commit or rollback), or right
 * after the statement outside a transaction. A value derived from a table (a list's count) and
 * stamped with the generations read before it was computed is current while they have not moved:
 * a reader that overlapped a write in flight sees the second move. Only this instance's writes
 * are seen: what other instances write is bounded by the cache's own age limit.
 */
export class WriteTracker {
  readonly #generations = new Map<string, number>();
  readonly #pending = new WeakMap<DatabaseConnection, Set<string>>();
  readonly #inTransaction = new WeakSet<DatabaseConnection>();

  /** The table's generation (0 until its first write). */
  generation(table: string): number {
    return this.#generations.get(table) ?? 0;
  }

  #bump(table: string): void {
    this.#generations.set(table, this.generation(table) + 1);
  }

  /** Called before a statement runs on `connection`: returns what to call once it has run. */
  statement(connection: DatabaseConnection, query: RootOperationNode): (() => void) | undefined {
    const table = writtenTable(query);
    if (table === undefined) return undefined;
    this.#bump(table);
    if (!this.#inTransaction.has(connection)) return () => this.#bump(table);
    let pending = this.#pending.get(connection);
    if (!pending) this.#pending.set(connection, (pending = new Set()));
    pending.add(table);
    return undefined;
  }

  began(connection: DatabaseConnection): void {
    this.#inTransaction.add(connection);
  }

  /** The transaction on `connection` committed or rolled back. */
  ended(connection: DatabaseConnection): void {
    this.#inTransaction.delete(connection);
    const pending = this.#pending.get(connection);
    if (!pending) return;
    this.#pending.delete(connection);
    for (const table of pending) this.#bump(table);
  }
}

/** The table an INSERT, UPDATE or DELETE writes; undefined for anything else (reads, DDL, raw SQL). */
function writtenTable(query: RootOperationNode): string | undefined {
  switch (query.kind) {
    case 'InsertQueryNode':
      return tableName(query.into);
    case 'UpdateQueryNode':
      return tableName(query.table);
    case 'DeleteQueryNode':
      return tableName(query.from.froms[0]);
    default:
      return undefined;
  }
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node.kind === 'AliasNode') return tableName((node as unknown as { node: OperationNode }).node);
  if (node.kind === 'TableNode') return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
  return undefined;
}
