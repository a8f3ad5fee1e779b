/**
 * The one error vocabulary of the service. Every failure a client can see is an AppError whose
 * code is a key of ERROR_CATALOGUE; the status and the body shape follow from the code, in this
 * one place (docs/errors.md mirrors it and a test keeps them in step).
 *
 * Shapes (spec, "Errors"): authentication, version and permission errors are `{"error": code}`;
 * every other error is `{"status": "error", "message": code, ...details}`.
 */
export type ErrorShape = 'error' | 'message';

interface CatalogueEntry {
  status: number;
  shape: ErrorShape;
  meaning: string;
}

export const ERROR_CATALOGUE = {
  'api-disabled': { status: 403, shape: 'error', meaning: 'The API is switched off in the installation settings (enable_api).' },
  'ip-banned': { status: 429, shape: 'error', meaning: 'Too many failed authentications from this address in the last 600 s; see Retry-After.' },
  'auth-token-invalid': { status: 401, shape: 'error', meaning: 'Missing, unknown or disabled API key.' },
  forbidden: { status: 403, shape: 'error', meaning: 'The key has no access rule allowing this method on this resource (or a read embeds, with `expand`, a resource the key may not read).' },
  'api-version-invalid': { status: 400, shape: 'error', meaning: 'The path has no version segment, or a version other than 3.' },

  'resource-not-found': { status: 404, shape: 'message', meaning: 'No resource or endpoint with that name.' },
  'record-not-found': { status: 404, shape: 'message', meaning: 'No record with that identifier.' },
  'method-not-allowed': { status: 405, shape: 'message', meaning: 'The resource exists but does not support this HTTP method (see the Allow header).' },
  'invalid-json': { status: 400, shape: 'message', meaning: 'The body is not valid JSON, or nests deeper than 32 levels (`reason`: `too-deep`).' },
  'invalid-request': { status: 400, shape: 'message', meaning: 'The HTTP message itself is malformed (answered before routing; the connection is closed).' },
  'invalid-url': { status: 400, shape: 'message', meaning: 'The path cannot be decoded (bad percent-encoding) or a path parameter is too long.' },
  'request-timeout': { status: 408, shape: 'message', meaning: 'The request was not received completely in time.' },
  'headers-too-large': { status: 431, shape: 'message', meaning: 'The request headers exceed the HTTP server\'s limit.' },
  'unsupported-content-encoding': { status: 415, shape: 'message', meaning: 'The body is compressed (`Content-Encoding` other than identity); send it uncompressed.' },
  'invalid-body': { status: 400, shape: 'message', meaning: 'The body is not an object of fields.' },
  'unsupported-media-type': { status: 415, shape: 'message', meaning: 'The body is neither JSON, form-urlencoded nor multipart/form-data.' },
  'body-too-large': { status: 413, shape: 'message', meaning: 'The body is larger than the configured limit (BODY_LIMIT).' },
  'invalid-filter-field': { status: 400, shape: 'message', meaning: 'A filter names a field that is not a visible column of the model; `parameter` names it.' },
  'invalid-filter-operator': { status: 400, shape: 'message', meaning: 'A filter uses an operator suffix that does not exist; `parameter` names it.' },
  'invalid-filter-value': { status: 400, shape: 'message', meaning: 'A filter value does not fit the field type; `parameter` names it.' },
  'invalid-field': { status: 400, shape: 'message', meaning: '`fields` names a field that is not a visible column of the model nor one of its expansions; `field` names it.' },
  'invalid-expand': { status: 400, shape: 'message', meaning: '`expand` names something the resource does not embed (documents: `lineas`, `cliente` or `proveedor`); `expand` names it.' },
  'invalid-sort-field': { status: 400, shape: 'message', meaning: 'A sort names a field that is not a visible column of the model; `parameter` names it.' },
  'invalid-sort-direction': { status: 400, shape: 'message', meaning: 'A sort direction is neither ASC nor DESC; `parameter` names it.' },
  'invalid-operation': { status: 400, shape: 'message', meaning: 'An operation[...] is not AND/OR or names no filter of the request; `parameter` names it.' },
  'invalid-idempotency-key': { status: 400, shape: 'message', meaning: 'The `Idempotency-Key` header is not 1 to 255 printable ASCII characters.' },
  'invalid-limit': { status: 400, shape: 'message', meaning: 'limit is not an integer between 1 and the configured maximum (`max`).' },
  'invalid-offset': { status: 400, shape: 'message', meaning: 'offset is not a non-negative integer.' },
  'invalid-parameter': { status: 400, shape: 'message', meaning: 'A query parameter has a value it does not take (`firmada` is 0, 1, true or false); `parameter` names it.' },
  'duplicate-parameter': { status: 400, shape: 'message', meaning: 'A list parameter was given more than once; `parameter` names it.' },
  'no-data': { status: 400, shape: 'message', meaning: 'A create or update body has no fields.' },
  'validation-failed': { status: 422, shape: 'message', meaning: 'The body does not fit the model; `fields` maps each offending field to a reason.' },
  'idempotency-key-reused': { status: 422, shape: 'message', meaning: 'The `Idempotency-Key` was used by this API key for a different request (method, path, query or body): nothing was done.' },
  'idempotency-key-in-use': { status: 409, shape: 'message', meaning: 'The first request with this `Idempotency-Key` is still running (see `Retry-After`); or (`reason: answer-lost`) its write committed but its answer was lost: nothing was done again.' },
  'import-rows-refused': { status: 422, shape: 'message', meaning: 'A spreadsheet import (`importar/{resource}`) found rows that cannot be written: nothing was written. `problemas` lists every problem as `{fila, campo, error}` (row 1 is the header row), `filas` the rows read.' },
  'batch-rolled-back': { status: 422, shape: 'message', meaning: 'An operation of an atomic batch failed: nothing of the batch was written. `index` names the first failed operation; `results` holds the answers up to it (the failed one last).' },
  'batch-interrupted': { status: 503, shape: 'message', meaning: 'An operation of an atomic batch failed in a way that may pass on a retry (a busy database, the rate limit, a time-out, an idempotency key in use): nothing of the batch was written and its Idempotency-Key is not kept; send it again after Retry-After. `index` and `results` as for `batch-rolled-back`.' },
  'precondition-failed': { status: 412, shape: 'message', meaning: 'The record changed since the `ETag` the `If-Match` header names: nothing was written. The answer carries the current `ETag`; read the record again.' },
  'duplicate-record': { status: 409, shape: 'message', meaning: 'A record with the same primary key or unique value already exists.' },
  'record-in-use': { status: 409, shape: 'message', meaning: 'The record is still referenced by another record under a RESTRICT rule, or used where the reference forbids its deletion; `reason` names the use when the database does not (`document-lines`: a product or variant sold or bought in a document; `main-variant`).' },
  'default-record': { status: 409, shape: 'message', meaning: 'The record is an installation default named in the `default` settings (tax, serie, payment method, currency, warehouse, country, company) and cannot be deleted; `setting` names the key. Change the setting first.' },
  'record-locked': { status: 409, shape: 'message', meaning: 'The record is locked (`bloquear`, e.g. the default document statuses) and cannot be deleted.' },
  'invalid-reference': { status: 422, shape: 'message', meaning: 'A field refers to a record that does not exist.' },
  'customer-not-found': { status: 404, shape: 'message', meaning: 'The customer (`codcliente`) of a document does not exist.' },
  'supplier-not-found': { status: 404, shape: 'message', meaning: 'The supplier (`codproveedor`) of a document does not exist.' },
  'warehouse-not-found': { status: 404, shape: 'message', meaning: 'The warehouse (`codalmacen`) of a document does not exist.' },
  'invalid-lines': { status: 400, shape: 'message', meaning: '`lineas` is not a list of line objects (an array, or a JSON string holding one).' },
  'invalid-date': { status: 400, shape: 'message', meaning: 'A document date or time is not a real date (`YYYY-MM-DD` or `DD-MM-YYYY`) or time (`HH:MM:SS`).' },
  'entry-locked': { status: 409, shape: 'message', meaning: 'The accounting entry of the document, or of one of its payments, is in a closed fiscal year or a locked VAT settlement (`idasiento`, `codejercicio` given): the document cannot be deleted, nor changed in what its entry shows (total, dates, payment method, customer or supplier).' },
  'exercise-closed': { status: 422, shape: 'message', meaning: 'The document date falls in a closed fiscal year of its company, or an accounting record (entry, entry line, account, sub-account, VAT settlement) belongs to a closed fiscal year (`codejercicio` given).' },
  'period-locked': { status: 422, shape: 'message', meaning: 'The invoice is dated in a VAT period already settled and locked (`liquidarIVA`; `fecha` given): it cannot be created, changed or deleted until the settlement is undone.' },
  'invoice-date-order': { status: 422, shape: 'message', meaning: 'A customer invoice would break date order within its serie and year (an earlier number with a later date, or the reverse).' },
  'document-not-editable': { status: 422, shape: 'message', meaning: 'The document is in a non-editable status: only femail, idestado, idestado_ant, numdocs and pagada may change.' },
  'not-enough-stock': { status: 422, shape: 'message', meaning: 'A line would take the stock below zero for a product that may not be sold without stock; `line` and `referencia` name it.' },
  'missing-pagada-parameter': { status: 400, shape: 'message', meaning: 'The payment endpoint needs the `pagada` flag.' },
  'cannot-change-subject': { status: 422, shape: 'message', meaning: 'An edit tried to change the customer or supplier of a document.' },
  'cannot-change-company': { status: 422, shape: 'message', meaning: 'An edit tried to change the company (`idempresa`) of a document.' },
  'cannot-change-warehouse': { status: 422, shape: 'message', meaning: 'An edit tried to change the warehouse (`codalmacen`) of a document.' },
  'cant-refund-a-refund': { status: 400, shape: 'message', meaning: 'A rectificative invoice cannot be rectified again.' },
  'customer-reached-maximum-risk': { status: 422, shape: 'message', meaning: 'The sales document would leave its customer above the maximum risk (`riesgomax`); `riesgomax` and `riesgoalcanzado` (the risk with this change) are given.' },
  'record-not-specified': { status: 400, shape: 'message', meaning: 'An endpoint that needs a record in its path got none (`/api/3/exportarFacturaCliente/`).' },
  'invalid-export-type': { status: 400, shape: 'message', meaning: 'The export `type` is not one of the supported types (`supported` lists them); the established system fell back to PDF silently.' },
  'export-type-unavailable': { status: 400, shape: 'message', meaning: 'The export type exists but not for this document: e-invoices (UBL, CII, FACTURAE) are for invoices only; `supported` lists what this document can be exported as.' },
  'invalid-export-format': { status: 400, shape: 'message', meaning: 'The export `format` is not a whole number (the id of a document format, or 0 for automatic).' },
  'format-not-found': { status: 404, shape: 'message', meaning: 'The export `format` names no document format (`formatodocumento`).' },
  'ambiguous-document-code': { status: 409, shape: 'message', meaning: 'Two companies have a document with this `codigo`; name the document by its id.' },
  'upload-file-too-large': { status: 413, shape: 'message', meaning: 'A file of the upload is larger than UPLOAD_MAX_FILE_BYTES; `file` names it and `limit` gives the bytes. Nothing of the request is kept.' },
  'too-many-files': { status: 413, shape: 'message', meaning: 'The upload holds more files than UPLOAD_MAX_FILES (`limit`). Nothing of the request is kept.' },
  'upload-too-large': { status: 413, shape: 'message', meaning: 'The upload request is larger than UPLOAD_MAX_REQUEST_BYTES (`limit`). Nothing of the request is kept.' },
  'file-refused': { status: 422, shape: 'message', meaning: 'A file of the upload was refused: `file` names it and `reason` says why (`empty-file`, `blocked-extension`, `active-content`: HTML, SVG or script whatever its name). Nothing of the request is kept; the established system skipped such files silently.' },
  'file-required': { status: 422, shape: 'message', meaning: 'An attached file is created by uploading one file (multipart/form-data); the request carried none, or several.' },
  'invalid-download-link': { status: 403, shape: 'message', meaning: 'The signature of the download link (`myft`) is missing, malformed or not the one of this path.' },
  'download-link-expired': { status: 403, shape: 'message', meaning: 'The `download` link is older than a day; ask the record again for a fresh one, or use `download-permanent`.' },
  'range-not-satisfiable': { status: 416, shape: 'message', meaning: 'The `Range` of a download lies outside the file; `Content-Range` gives its size.' },
  'invalid-thumbnail-size': { status: 400, shape: 'message', meaning: 'A thumbnail `width` or `height` (product images) is not a whole number; `parameter` names it.' },
  'full-access-required': { status: 403, shape: 'message', meaning: 'Enabling or disabling a plugin needs a full-access key (after the access rule of `plugins`).' },
  'plugin-not-found': { status: 404, shape: 'message', meaning: 'No installed plugin has that name; `plugin` names it.' },
  'invalid-action': { status: 400, shape: 'message', meaning: 'A plugin action other than `enable` or `disable`.' },
  'plugin-incompatible': { status: 422, shape: 'message', meaning: 'The plugin needs a newer core: `min_version` and `core_version` are given.' },
  'plugin-requirements-missing': { status: 422, shape: 'message', meaning: 'The plugins it requires are not installed or not enabled; `missing` lists them.' },
  'plugin-required': { status: 422, shape: 'message', meaning: 'Enabled plugins require this one; `by` lists them. Disable those first.' },
  'invalid-cursor': { status: 400, shape: 'message', meaning: 'A cursor the service did not give: the change feed\'s `after`, or a list\'s `cursor` (from its `Link` header) used with another sort, with `offset` (`reason`: `cursor-with-offset`), or with a sort that pages by offset only (`reason`: `sort-not-pageable`); the feed\'s `after` given with `latest` (`reason`: `cursor-with-latest`).' },
  'invalid-event-type': { status: 400, shape: 'message', meaning: 'The change feed\'s `type` names no event type (a type, a prefix ending in `.*`, or `*`, comma-separated); `value` gives the offending item.' },
  'events-cursor-expired': { status: 410, shape: 'message', meaning: 'Events after the feed cursor `after` were pruned (older than EVENTS_RETENTION_DAYS): reload the data and follow the feed from a new cursor.' },
  'document-has-children': { status: 409, shape: 'message', meaning: 'The document has documents generated from it; delete those first.' },
  'invoice-issued': { status: 422, shape: 'message', meaning: 'The invoice has a VERI*FACTU record or a TicketBAI file: its fiscal identity and amounts (company, serie, number, code, dates, customer and tax id, currency, discounts, lines, taxes, totals) can no longer change; `fields` names what the change would alter. Correct it with a rectifying invoice (`crearFacturaRectificativaCliente`), or cancel it (`anularFacturaCliente`, `anularTicketBAI`). Its status, payment, notes and attachments still change.' },
  'fiscal-record-exists': { status: 409, shape: 'message', meaning: 'The invoice has a VERI*FACTU record or a TicketBAI file and can never be deleted; its number is never reused. Cancel it with `anularFacturaCliente` (`anularTicketBAI`), or correct it with a rectifying invoice.' },
  'record-immutable': { status: 409, shape: 'message', meaning: 'The record belongs to an append-only table (VERI*FACTU records, TicketBAI files): it is never changed nor deleted, through the API, the store or SQL.' },
  'invoice-not-recorded': { status: 409, shape: 'message', meaning: 'The invoice has no VERI*FACTU record (`anularFacturaCliente`) or no TicketBAI file (`anularTicketBAI`): it was issued while its company had the system off, and there is nothing to cancel.' },
  'invoice-already-cancelled': { status: 409, shape: 'message', meaning: 'The invoice was cancelled already (`anularFacturaCliente`, `anularTicketBAI`): it cannot be cancelled again nor rectified; `idregistro` names the cancellation record.' },
  'record-not-correctable': { status: 409, shape: 'message', meaning: 'The VERI*FACTU record cannot be corrected with a subsanación: `reason` `not-a-verifactu-alta` (an anulación, or a NO VERI*FACTU record), `not-rejected` (the AEAT has not rejected it nor accepted it with errors; `estado` given) or `superseded` (a later record of its invoice, `idregistro`, is the one to correct). A TicketBAI file (`zuzenduTicketBAI`, `reenviarTicketBAI`): `no-zuzendu-in-bizkaia` (Bizkaia has no Zuzendu: resend it), `not-correctable` (a correction itself), `not-answered-yet` (the treasury has not answered; `estado` given), `not-refused` (a cancellation it took), `correction-pending` (`idregistro` names the correction still waiting), `already-accepted`, `use-zuzendu` (a file Araba or Gipuzkoa refused is corrected, not resent).' },
  'face-refused': { status: 422, shape: 'message', meaning: 'FACe refused the invoice or the request (`enviarFACe`, `anularFACe`): `codigo` and `descripcion` are FACe\'s (4xx: the invoice, its DIR3 centres or its signature; 3xx: the state or the request), `codigoSeguimiento` its trace id. Nothing was registered.' },
  'face-already-sent': { status: 409, shape: 'message', meaning: 'The invoice is at FACe already (`enviarFACe`): sent and neither rejected nor cancelled there, or being sent now; `idregistro` names its `registroface`.' },
  'face-unavailable': { status: 502, shape: 'message', meaning: 'FACe could not be reached or did not answer as its service does (`reason`), or refused the request\'s signature or certificate (`codigo` 1xx, 2xx, 300): nothing is known to be registered; send again later, or register the certificate in FACe.' },
  'mail-server-error': { status: 502, shape: 'message', meaning: 'The mail server refused the test message or could not be reached (`probarEmail`): `reason` gives its answer or the connection error, `permanent` whether it was a 5xx.' },
  'rate-limited': { status: 429, shape: 'message', meaning: 'This API key made its requests of the minute (its `ratelimit`, else RATE_LIMIT_PER_MINUTE; `limit` given): retry after `Retry-After` seconds. Nothing was done.' },
  'shutting-down': { status: 503, shape: 'message', meaning: 'The service is stopping: the request was not run (see `Retry-After`; the connection closes). Send it again: another instance, or this one restarted, answers it.' },
  'database-busy': { status: 503, shape: 'message', meaning: 'The database reported a deadlock or serialisation failure after retries; try again (see Retry-After).' },
  'database-unavailable': { status: 503, shape: 'message', meaning: 'The database connection was lost or could not be opened in time; try again (see Retry-After). Only a connection lost while committing leaves the outcome open: look the record up before repeating a creation.' },
  'internal-error': { status: 500, shape: 'message', meaning: 'An unexpected failure; it is logged with the request id.' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(code, options);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.details = details;
  }

  /** The response body in the spec's shape for this code. */
  body(): Record<string, unknown> {
    if (ERROR_CATALOGUE[this.code].shape === 'error') return { error: this.code };
    return { status: 'error', message: this.code, ...this.details };
  }
}

/**
 * An empty map of field name -> reason, for names that come from a request: with a null
 * prototype, a field called `__proto__` is recorded like any other instead of vanishing.
 */
export function fieldErrors(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

/**
 * Field-level validation failure: `fields` maps field name to a reason code; `details` adds other
 * members (`accepted`: the values a field with a vocabulary takes, when one was refused).
 */
export function validationError(fields: Record<string, string>, details: Record<string, unknown> = {}): AppError {
  return new AppError('validation-failed', { fields, ...details });
}

/**
 * A module's own refusal, named by a code and its details (an entry that cannot be posted, a
 * recurring period that cannot be billed): caught by that module, never answered as such.
 */
export class CodedFailure extends Error {
  readonly code: string;
  readonly detail: Record<string, unknown>;

  constructor(code: string, detail: Record<string, unknown> = {}) {
    super(code);
    this.code = code;
    this.detail = detail;
  }
}
