import path from 'node:path';
import { isTimeZone } from './clock.ts';

/** The typed, validated configuration of one process (architecture section 2). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  dataDir: string;
  /** The global key of the spec (constant `api_key`): full access, never stored. */
  apiKey: string | undefined;
  /** When set, the client address is taken from `X-Forwarded-For` (Fastify's trustProxy value). */
  trustProxy: boolean | string | number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest `limit` a list request may ask for. */
  maxListLimit: number;
  /** Largest request body in bytes (JSON and form bodies). */
  bodyLimit: number;
  /**
   * How often (ms) an instance polls the shared state: changes to keys, rules and settings made
   * by other instances or the CLI, bans counted elsewhere, and the coalesced key activity writes.
   */
  stateRefreshMs: number;
  /**
   * Whether concurrent document creations share a transaction and its commit, each in its own
   * savepoint (decision 0013): `auto` (on for SQLite only), `on` or `off`.
   */
  groupCommit: 'auto' | 'on' | 'off';
  /**
   * PostgreSQL: whether frequent statements run as named (prepared) statements (db/pg-named-statements.ts).
   * Off behind a pooler in transaction mode that does not keep them (PgBouncer before 1.21).
   */
  pgPreparedStatements: boolean;
  /**
   * The installation's time zone for business dates (document dates, due dates, fiscal years,
   * overdue), overriding the `timezone` setting. Unset: the setting decides.
   */
  timeZone: string | undefined;
  /**
   * Where uploaded files' bytes live: `local` (under `dataDir`) or `database` (in the database,
   * shared by every instance that uses it).
   */
  filesStorage: 'local' | 'database';
  /** Upload limits: one file's bytes, files per request, and a whole upload request's bytes. */
  uploadMaxFileBytes: number;
  uploadMaxFiles: number;
  uploadMaxRequestBytes: number;
  /** A folder of installed plugins besides the shipped `plugins/` (each a folder with `plugin.json`). */
  pluginsDir: string | undefined;
  /** Days the event log keeps events (docs/events.md); older ones are pruned in the background. */
  eventsRetentionDays: number;
  /** Hours an `Idempotency-Key` and its stored answer are kept (docs/writes.md). */
  idempotencyTtlHours: number;
  /** Requests per API key and minute (0: no limit); a key's `ratelimit` overrides it (docs/deploy.md). */
  rateLimitPerMinute: number;
  /** How long a SIGTERM/SIGINT waits for requests in flight before it closes their connections. */
  shutdownTimeoutMs: number;
  /**
   * How old (ms) the event after a hole in the event log's ids must be before readers pass the
   * hole as a rolled-back write rather than wait for it to commit (docs/events.md, ordering).
   */
  eventsGapMs: number;
  /**
   * Read replicas of the primary (PostgreSQL or MariaDB/MySQL, the primary's engine): reads of GET
   * requests outside transactions go to them (docs/deploy.md, "Read replicas"). Empty: none.
   */
  databaseReadUrls: string[];
  /** A replica further behind the primary than this (ms) is skipped until it catches up. */
  readReplicaMaxLagMs: number;
  /** How often (ms) each replica's health and lag are checked. */
  readReplicaCheckMs: number;
  /** After a key's write, its reads stay on the primary for this long (ms): a client reads what it wrote. */
  readYourWritesMs: number;
  /** VERI*FACTU sending and signing (docs/verifactu.md, "Certificates"). */
  verifactu: VerifactuConfig;
  /** TicketBAI sending and the software's registration data (docs/ticketbai.md). */
  ticketbai: TicketbaiConfig;
  /** FACe, the public sector's invoice hub (docs/facturae-face.md). */
  face: FaceConfig;
  /** Sending e-mail (docs/email.md). */
  mail: MailConfig;
}

/** FACe's supplier service (SOAP `facturasspp2`): its staging and production addresses. */
export const FACE_ENDPOINTS = {
  staging: 'https://se-face-webservice.redsara.es/facturasspp2',
  production: 'https://webservice.face.gob.es/facturasspp2',
} as const;

export interface FaceConfig {
  /** FACE_ENDPOINT: `staging` (the default), `production`, or the service's full https URL (a stand-in, a proxy). */
  endpoint: string;
  /** A PEM authority trusted besides the system's (FACE_CA_FILE). */
  caFile: string | undefined;
  /** How often (ms) the states of invoices sent are asked for (FACE_POLL_MS). */
  pollMs: number;
  timeoutMs: number;
}

export interface TicketbaiConfig {
  /**
   * TICKETBAI_ENDPOINT_<TERRITORIO>: replaces the treasury's host (a local stand-in, a proxy): an
   * origin gets the treasury's paths; a URL with a path is the alta service's full address (the
   * other services beside it) or a prefix the paths are added to (sending/endpoints.ts).
   */
  endpoints: Partial<Record<'araba' | 'bizkaia' | 'gipuzkoa', string>>;
  /** A PEM authority trusted besides the system's (TICKETBAI_CA_FILE). */
  caFile: string | undefined;
  /**
   * The software as the TicketBAI registry lists it (TICKETBAI_LICENCIA, TICKETBAI_DESARROLLADOR_NIF,
   * TICKETBAI_SOFTWARE_NOMBRE, TICKETBAI_SOFTWARE_VERSION; and TICKETBAI_DESARROLLADOR_NOMBRE, shown on
   * the inspection screen, not in the files); unset: the treasuries' test data, accepted by their test
   * services only.
   */
  software: { licence?: string; developerNif?: string; developerName?: string; name?: string; version?: string };
  pollMs: number;
  timeoutMs: number;
}

export interface MailConfig {
  /** `SMTP_URL` (`smtp://user:pass@host:587`, `smtps://...:465`): replaces the settings' server, port, security and login. */
  smtpUrl: string | undefined;
  /** How often (ms) an instance looks for messages due to be sent and reminders due. */
  pollMs: number;
  /** First retry of a transport failure after this, doubling each attempt, at most an hour. */
  retryBaseSeconds: number;
  /** After this many attempts a message that never went is `fallido`. */
  maxAttempts: number;
  /** How long (ms) the SMTP server may keep the sender waiting (connection, greeting, each answer); a sender's claim lasts ten of these. */
  timeoutMs: number;
  /** The attachments of one message, together, at most this many bytes. */
  maxAttachmentBytes: number;
}

export interface VerifactuConfig {
  /** The installation's PKCS#12 certificate (a company's own, set through the API, wins) and its password. */
  certFile: string | undefined;
  certPassword: string;
  /** An origin (`https://host:port`) or a service's full URL replacing the AEAT's hosts (a local stand-in, a proxy). */
  endpoint: string | undefined;
  /** A PEM authority trusted besides the system's (the stand-in's). */
  caFile: string | undefined;
  /** How often (ms) an instance looks for records due to be sent. */
  pollMs: number;
  /** How long (ms) one message may take, connection to answer; a sender's claim lasts twice this. */
  timeoutMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function trustProxyVar(raw: string | undefined): boolean | string | number {
  if (raw === undefined || raw === '' || /^(0|false|no|off)$/i.test(raw)) return false;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  // A hop count ("2") or a list of trusted addresses/CIDRs ("10.0.0.0/8,127.0.0.1").
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

/** A database URL for messages: its user and password replaced. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1***@');
}

export function parseDatabaseUrl(url: string, variable = 'DATABASE_URL'): { engine: 'sqlite' | 'postgres' | 'mysql' } {
  if (url.startsWith('sqlite:')) return { engine: 'sqlite' };
  if (/^postgres(ql)?:\/\//.test(url)) return { engine: 'postgres' };
  if (/^(mysql|mariadb):\/\//.test(url)) return { engine: 'mysql' };
  throw new ConfigError(`${variable} must start with sqlite:, postgres:// or mysql://, got "${redactUrl(url)}"`);
}

/**
 * VERIFACTU_ENDPOINT: a bare origin (`https://host[:port]`, the AEAT's service path is added) or
 * a service's full URL as the AEAT's WSDL publishes it (`https://host[:port]/.../VerifactuSOAP` or
 * `.../RequerimientoSOAP`), used as given; sending/endpoints.ts derives the other service beside it.
 */
function verifactuEndpoint(value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  const path = url?.pathname.replace(/\/$/, '') ?? '';
  const shaped = url && url.protocol === 'https:' && !url.username && !url.password && !/[?#]/.test(value) && (path === '' || /\/(VerifactuSOAP|RequerimientoSOAP)$/.test(path));
  if (!shaped) {
    throw new ConfigError(`VERIFACTU_ENDPOINT must be https://host[:port] or a service's full URL (https://host[:port]/wlpl/TIKE-CONT/ws/SistemaFacturacion/VerifactuSOAP), got "${value}"`);
  }
  return `${url!.origin}${path}`;
}

function verifactuConfig(env: NodeJS.ProcessEnv): VerifactuConfig {
  const endpoint = verifactuEndpoint(env.VERIFACTU_ENDPOINT);
  return {
    certFile: env.VERIFACTU_CERT_FILE ? path.resolve(env.VERIFACTU_CERT_FILE) : undefined,
    certPassword: env.VERIFACTU_CERT_PASSWORD ?? '',
    endpoint,
    caFile: env.VERIFACTU_CA_FILE ? path.resolve(env.VERIFACTU_CA_FILE) : undefined,
    pollMs: intVar(env, 'VERIFACTU_POLL_MS', 5000, 10, 3_600_000),
    timeoutMs: intVar(env, 'VERIFACTU_TIMEOUT_MS', 60_000, 100, 600_000),
  };
}

/** TICKETBAI_ENDPOINT_<TERRITORIO>: an https URL without credentials, query or fragment. */
function ticketbaiEndpoint(env: NodeJS.ProcessEnv, territory: string): string | undefined {
  const name = `TICKETBAI_ENDPOINT_${territory.toUpperCase()}`;
  const value = env[name];
  if (!value) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || url.protocol !== 'https:' || url.username || url.password || /[?#]/.test(value)) {
    throw new ConfigError(`${name} must be https://host[:port] or an https URL without credentials, query or fragment, got "${value}"`);
  }
  return `${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
}

function ticketbaiConfig(env: NodeJS.ProcessEnv): TicketbaiConfig {
  const endpoints: TicketbaiConfig['endpoints'] = {};
  for (const territory of ['araba', 'bizkaia', 'gipuzkoa'] as const) {
    const endpoint = ticketbaiEndpoint(env, territory);
    if (endpoint) endpoints[territory] = endpoint;
  }
  const developerNif = env.TICKETBAI_DESARROLLADOR_NIF?.trim().toUpperCase() || undefined;
  if (developerNif && !/^[0-9A-Z]{9}$/.test(developerNif)) throw new ConfigError(`TICKETBAI_DESARROLLADOR_NIF must be a 9-character NIF, got "${developerNif}"`);
  const text = (name: string, max: number) => {
    const value = env[name]?.trim() || undefined;
    if (value && value.length > max) throw new ConfigError(`${name} must be at most ${max} characters`);
    return value;
  };
  return {
    endpoints,
    caFile: env.TICKETBAI_CA_FILE ? path.resolve(env.TICKETBAI_CA_FILE) : undefined,
    software: { licence: text('TICKETBAI_LICENCIA', 20), developerNif, developerName: text('TICKETBAI_DESARROLLADOR_NOMBRE', 120), name: text('TICKETBAI_SOFTWARE_NOMBRE', 120), version: text('TICKETBAI_SOFTWARE_VERSION', 20) },
    pollMs: intVar(env, 'TICKETBAI_POLL_MS', 5000, 10, 3_600_000),
    timeoutMs: intVar(env, 'TICKETBAI_TIMEOUT_MS', 30_000, 100, 600_000),
  };
}

function faceConfig(env: NodeJS.ProcessEnv): FaceConfig {
  const given = env.FACE_ENDPOINT?.trim() || 'staging';
  let endpoint: string;
  if (given === 'staging' || given === 'production') endpoint = FACE_ENDPOINTS[given];
  else {
    const url = URL.canParse(given) ? new URL(given) : undefined;
    if (!url || url.protocol !== 'https:' || url.username || url.password || /[?#]/.test(given)) {
      throw new ConfigError(`FACE_ENDPOINT must be staging, production or an https URL without credentials, query or fragment, got "${given}"`);
    }
    endpoint = `${url.origin}${url.pathname}`;
  }
  return {
    endpoint,
    caFile: env.FACE_CA_FILE ? path.resolve(env.FACE_CA_FILE) : undefined,
    pollMs: intVar(env, 'FACE_POLL_MS', 3_600_000, 10, 86_400_000),
    timeoutMs: intVar(env, 'FACE_TIMEOUT_MS', 60_000, 100, 600_000),
  };
}

function smtpUrl(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || !url.hostname) {
    throw new ConfigError(`SMTP_URL must be smtp://[user:password@]host[:port] or smtps://..., got "${redactUrl(value)}"`);
  }
  return value.trim();
}

function mailConfig(env: NodeJS.ProcessEnv): MailConfig {
  return {
    smtpUrl: smtpUrl(env.SMTP_URL),
    pollMs: intVar(env, 'MAIL_POLL_MS', 2000, 10, 3_600_000),
    retryBaseSeconds: intVar(env, 'MAIL_RETRY_BASE_SECONDS', 60, 0, 3600),
    maxAttempts: intVar(env, 'MAIL_MAX_ATTEMPTS', 10, 1, 100),
    timeoutMs: intVar(env, 'MAIL_TIMEOUT_MS', 60_000, 100, 600_000),
    maxAttachmentBytes: intVar(env, 'MAIL_MAX_ATTACHMENT_BYTES', 20 * 1_048_576, 1024, 1_073_741_824),
  };
}

/** Reads the configuration once; a bad value throws a ConfigError with a message for humans. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR || './data');
  const databaseUrl = env.DATABASE_URL || `sqlite:${path.join(dataDir, 'invoicing.sqlite')}`;
  parseDatabaseUrl(databaseUrl);
  const logLevel = (env.LOG_LEVEL || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const apiKey = env.API_KEY === undefined || env.API_KEY === '' ? undefined : env.API_KEY;
  const timeZone = env.TIME_ZONE || undefined;
  if (timeZone !== undefined && !isTimeZone(timeZone)) throw new ConfigError(`TIME_ZONE must be a time zone name such as Europe/Madrid or UTC, got "${timeZone}"`);
  const groupCommit = (env.GROUP_COMMIT || 'auto').toLowerCase();
  if (groupCommit !== 'auto' && groupCommit !== 'on' && groupCommit !== 'off') throw new ConfigError(`GROUP_COMMIT must be auto, on or off, got "${env.GROUP_COMMIT}"`);
  const prepared = (env.PG_PREPARED_STATEMENTS || 'on').toLowerCase();
  if (prepared !== 'on' && prepared !== 'off') throw new ConfigError(`PG_PREPARED_STATEMENTS must be on or off, got "${env.PG_PREPARED_STATEMENTS}"`);
  const filesStorage = (env.FILES_STORAGE || 'local').toLowerCase();
  if (filesStorage !== 'local' && filesStorage !== 'database') throw new ConfigError(`FILES_STORAGE must be local or database, got "${env.FILES_STORAGE}"`);
  if (apiKey !== undefined && apiKey.length < 16) {
    throw new ConfigError('API_KEY must be at least 16 characters long (it grants full access)');
  }
  const databaseReadUrls = (env.DATABASE_READ_URL ?? '').split(',').map((url) => url.trim()).filter(Boolean);
  for (const url of databaseReadUrls) {
    const { engine } = parseDatabaseUrl(url, 'DATABASE_READ_URL');
    if (engine === 'sqlite' || engine !== parseDatabaseUrl(databaseUrl).engine) {
      throw new ConfigError(`DATABASE_READ_URL must list replicas of the primary's engine (PostgreSQL or MariaDB/MySQL), got "${redactUrl(url)}"`);
    }
  }
  return {
    port: intVar(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    dataDir,
    apiKey,
    trustProxy: trustProxyVar(env.TRUST_PROXY),
    logLevel: logLevel as Config['logLevel'],
    maxListLimit: intVar(env, 'MAX_LIST_LIMIT', 1000, 1, 1_000_000),
    bodyLimit: intVar(env, 'BODY_LIMIT', 1_048_576, 1024, 1_073_741_824),
    stateRefreshMs: intVar(env, 'STATE_REFRESH_MS', 1000, 10, 60_000),
    timeZone,
    filesStorage,
    groupCommit,
    pgPreparedStatements: prepared === 'on',
    uploadMaxFileBytes: intVar(env, 'UPLOAD_MAX_FILE_BYTES', 10 * 1_048_576, 1, 4 * 1_073_741_824),
    uploadMaxFiles: intVar(env, 'UPLOAD_MAX_FILES', 20, 1, 1000),
    uploadMaxRequestBytes: intVar(env, 'UPLOAD_MAX_REQUEST_BYTES', 100 * 1_048_576, 1024, 16 * 1_073_741_824),
    pluginsDir: env.PLUGINS_DIR ? path.resolve(env.PLUGINS_DIR) : undefined,
    eventsRetentionDays: intVar(env, 'EVENTS_RETENTION_DAYS', 30, 1, 36_500),
    idempotencyTtlHours: intVar(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 8760),
    rateLimitPerMinute: intVar(env, 'RATE_LIMIT_PER_MINUTE', 0, 0, 1_000_000_000),
    shutdownTimeoutMs: intVar(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    eventsGapMs: intVar(env, 'EVENTS_GAP_MS', 10_000, 0, 3_600_000),
    databaseReadUrls,
    readReplicaMaxLagMs: intVar(env, 'READ_REPLICA_MAX_LAG_MS', 2000, 0, 3_600_000),
    readReplicaCheckMs: intVar(env, 'READ_REPLICA_CHECK_MS', 1000, 10, 600_000),
    readYourWritesMs: intVar(env, 'READ_YOUR_WRITES_MS', 5000, 0, 3_600_000),
    verifactu: verifactuConfig(env),
    ticketbai: ticketbaiConfig(env),
    face: faceConfig(env),
    mail: mailConfig(env),
  };
}

/**
 * For process entry points: reads `.env` when present, then the environment; a bad value ends the
 * process with exit code 2 and a message naming the variable.
 */
export function loadProcessConfig(): Config {
  try {
    process.loadEnvFile();
  } catch {
    // no .env file: the environment alone configures the service
  }
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
}
