/**
 * The internal, typed event bus of one app instance (spec, "Events": the core sends no webhooks;
 * extensions subscribe in-process). Listeners run after the change they describe has been
 * committed; a listener that throws is logged and never breaks the request that emitted.
 *
 * Every event but `model.load` is also written to the event log in the transaction of its change
 * (src/event-log.ts: emit them with `publish`, never with a bare `emit`); docs/events.md lists
 * them with their payloads.
 */
export interface ModelEvent {
  model: string;
  record: Record<string, unknown>;
}

/** A business document: its type (`FacturaCliente` ...) and header record. */
export interface DocumentEvent {
  type: string;
  doc: Record<string, unknown>;
}

/** An API key: its visible fields only (never the token nor its digest). */
export interface ApiKeyEvent {
  id: number;
  record: Record<string, unknown>;
}

/** An access rule (`apiaccess`) created, changed or deleted (also when its key is deleted). */
export interface AccessEvent {
  action: 'created' | 'updated' | 'deleted';
  idapikey: number;
  resource: string;
  rule: Record<string, unknown>;
}

/**
 * A check of a VERI*FACTU chain found something wrong (RD 1007/2023 art. 7.i: the previous record
 * badly chained, or dated more than a minute after now). Invoicing goes on; this is the alert.
 */
export interface FiscalAnomalyEvent {
  idempresa: number;
  /**
   * `chain` (a hash or a link does not match), `time` (the previous record is dated in the future)
   * or `signature` (NO VERI*FACTU: the record could not be signed, for want of a usable certificate).
   */
  check: 'chain' | 'time' | 'signature';
  /** The record found wrong. */
  idregistro: number | null;
  detail: string;
}

/**
 * A document or payment saved without its accounting entry: the chart lacks what it needs (a
 * sub-account, a retention ...), or the year is closed or its date in a locked VAT settlement (an
 * entry that would not balance refuses the operation instead).
 */
export interface NotPostedEvent {
  /** `facturacliente`, `facturaproveedor`, `pagocliente` or `pagoproveedor`. */
  resource: string;
  id: number;
  codejercicio: string | null;
  /** The reason (`customer-account-not-found`, `closed-exercise` ...). */
  code: string;
  detail: Record<string, unknown>;
}

/** A message of the outbox went (`email.sent`) or was given up (`email.failed`), docs/email.md. */
export interface MailEvent {
  /** The `emailsent` record. */
  id: number;
  /** `documento` or `recordatorio`. */
  tipo: string;
  to: string;
  subject: string;
  /** The document it carried (`FacturaCliente`, 12), and for a reminder the receipt; null when none. */
  modelo: string | null;
  modeloid: number | null;
  idrecibo: number | null;
  messageid: string;
  /** The server's answer (`250 2.0.0 Ok: queued as ...`). */
  response?: string;
  /** Why it was given up. */
  reason?: string;
  /** An earlier hand-over's outcome was never recorded: the recipient may have it twice. */
  possibleDuplicate?: boolean;
}

/** A TicketBAI file's treasury answered (or its state changed by a correction): what it says now. */
export interface TicketbaiStateEvent {
  idempresa: number;
  idregistro: number;
  idfactura: number;
  tipo: string;
  estado: string;
  /** The treasury's codes (comma-separated) and texts, when it gave any. */
  codigo: string | null;
  descripcion: string | null;
}

/** An invoice sent to FACe changed state (registered, accounted, paid, rejected, cancelled, a cancellation asked or answered). */
export interface FaceStateEvent {
  idfactura: number;
  idregistro: number;
  numeroregistro: string | null;
  tramitacion: string | null;
  anulacion: string | null;
  motivo: string | null;
}

/** A recurring invoice's period could not be billed (docs/recurring.md); later periods wait for it. */
export interface RecurringFailedEvent {
  idrecurrente: number;
  periodo: number;
  /** The period's first day. */
  desde: string;
  code: string;
  detail: Record<string, unknown>;
}

export interface AppEvents {
  'model.save': ModelEvent & { created: boolean };
  'model.delete': ModelEvent;
  'model.load': ModelEvent;
  'document.created': DocumentEvent & { lines: Array<Record<string, unknown>> };
  'document.updated': DocumentEvent;
  'document.deleted': DocumentEvent;
  /** The document reached a status that generates another document or locks it. */
  'document.approved': DocumentEvent & { idestado: number };
  'receipt.paid': { type: string; receipt: Record<string, unknown>; paid: boolean };
  'payment.recorded': { type: string; idfactura: unknown; count: number };
  /** A file was stored: uploaded (`uploadFiles`, `attachedfiles`) or its bytes replaced. */
  'file.uploaded': { file: Record<string, unknown>; replaced: boolean };
  /** An attached file and its bytes were deleted. */
  'file.deleted': { file: Record<string, unknown> };
  'apikey.created': ApiKeyEvent;
  /** A key's `enabled` flag changed to true. */
  'apikey.enabled': ApiKeyEvent;
  /** A key's `enabled` flag changed to false. */
  'apikey.disabled': ApiKeyEvent;
  'access.changed': AccessEvent;
  'verifactu.anomaly': FiscalAnomalyEvent;
  'accounting.not-posted': NotPostedEvent;
  'email.sent': MailEvent;
  'email.failed': MailEvent;
  'recurring.failed': RecurringFailedEvent;
  'ticketbai.state': TicketbaiStateEvent;
  'face.state': FaceStateEvent;
}

type Listener<T> = (payload: T) => void | Promise<void>;

export class EventBus<E extends object = AppEvents> {
  #listeners = new Map<keyof E, Set<Listener<never>>>();
  #onError: (error: unknown, event: string) => void;
  #run: <T>(fn: () => T) => T;

  /**
   * `run` wraps every listener call: the app runs listeners outside any transaction's scope, so
   * that work they start (a read, a timer) is not mistaken for work of a transaction long gone.
   */
  constructor(onError: (error: unknown, event: string) => void = () => {}, run: <T>(fn: () => T) => T = (fn) => fn()) {
    this.#onError = onError;
    this.#run = run;
  }

  on<K extends keyof E>(event: K, listener: Listener<E[K]>): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  /** True when someone listens: lets hot paths skip building payloads nobody reads. */
  has(event: keyof E): boolean {
    return (this.#listeners.get(event)?.size ?? 0) > 0;
  }

  emit<K extends keyof E>(event: K, payload: E[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of set) {
      try {
        const result = this.#run(() => (listener as Listener<E[K]>)(payload));
        if (result && typeof result.then === 'function') {
          result.then(undefined, (error) => this.#onError(error, String(event)));
        }
      } catch (error) {
        this.#onError(error, String(event));
      }
    }
  }
}
