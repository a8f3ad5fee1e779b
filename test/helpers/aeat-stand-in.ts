import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';

/**
 * A local stand-in of the AEAT's VERI*FACTU web service (SistemaFacturacion.wsdl,
 * `RegFactuSistemaFacturacion`), for tests: HTTPS with its own authority, requiring a client
 * certificate that authority issued (as the AEAT requires a qualified one). Every message it receives
 * is validated with xmllint against the AEAT's schemas, every answer it gives too. It keeps the
 * records it took by invoice, and answers as the service does: `Correcto`, `AceptadoConErrores`
 * (2000, a Huella that does not recompute), `Incorrecto` (1109 for a recipient NIF it is told is
 * unknown; 3000 with `RegistroDuplicado` for an alta it holds already), a SOAP fault, or a dropped
 * connection, as the test asks.
 */

const SCHEMAS = path.resolve(import.meta.dirname, '../vendor/verifactu');
const SF = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/SuministroInformacion.xsd';
const SFR = 'https://www2.agenciatributaria.gob.es/static_files/common/internet/dep/aplicaciones/es/aeat/tike/cont/ws/RespuestaSuministro.xsd';
const ERRORS = new Map(fs.readFileSync(path.join(SCHEMAS, 'errores.properties'), 'latin1').split(/\r?\n/)
  .map((line) => /^(\d+)\s*=\s*(.*)$/.exec(line)).filter((match): match is RegExpExecArray => Boolean(match)).map((match) => [Number(match[1]), match[2]!.trim()]));

export interface Certificates {
  dir: string;
  /** The authority's certificate (PEM file): VERIFACTU_CA_FILE. */
  caFile: string;
  /** The taxpayer's PKCS#12 and its password. */
  clientP12: Buffer;
  clientP12File: string;
  password: string;
  /** Another authority's client certificate, which the stand-in refuses. */
  strangerP12: Buffer;
  /** The taxpayer's certificate as a legacy PKCS#12 (RC2-40 and 3DES, as some authorities still issue), which Node's OpenSSL 3 will not open. */
  legacyP12: Buffer;
  /** The client certificate's PEM (for signature checks). */
  clientCertFile: string;
}

/** A test authority, a server certificate for 127.0.0.1, and a client certificate as PKCS#12, made with openssl. */
export function makeCertificates(): Certificates {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aeat-certs-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const authority = (name: string) => run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '30', '-subj', `/CN=${name}`);
  const issue = (name: string, ca: string, subject: string, extensions: string) => {
    fs.writeFileSync(path.join(dir, `${name}.ext`), extensions);
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject);
    run('x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '30', '-extfile', `${name}.ext`);
  };
  authority('test-ca');
  authority('other-ca');
  issue('server', 'test-ca', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  issue('client', 'test-ca', '/CN=EJEMPLO SOLUCIONES SL/serialNumber=IDCES-B12345674', 'extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature,nonRepudiation,keyEncipherment\n');
  issue('stranger', 'other-ca', '/CN=STRANGER', 'extendedKeyUsage=clientAuth\n');
  const password = 'clave de prueba';
  run('pkcs12', '-export', '-in', 'client.pem', '-inkey', 'client.key', '-certfile', 'test-ca.pem', '-out', 'client.p12', '-passout', `pass:${password}`);
  run('pkcs12', '-export', '-legacy', '-in', 'client.pem', '-inkey', 'client.key', '-out', 'legacy.p12', '-passout', `pass:${password}`);
  run('pkcs12', '-export', '-in', 'stranger.pem', '-inkey', 'stranger.key', '-out', 'stranger.p12', '-passout', `pass:${password}`);
  return {
    dir,
    caFile: path.join(dir, 'test-ca.pem'),
    clientP12: fs.readFileSync(path.join(dir, 'client.p12')),
    clientP12File: path.join(dir, 'client.p12'),
    password,
    strangerP12: fs.readFileSync(path.join(dir, 'stranger.p12')),
    legacyP12: fs.readFileSync(path.join(dir, 'legacy.p12')),
    clientCertFile: path.join(dir, 'client.pem'),
  };
}

/** Validates a whole SOAP envelope against the AEAT schemas; answers xmllint's complaint, or undefined. */
export function envelopeErrors(xml: string): string | undefined {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(SCHEMAS, 'envelope.xsd'), '-'], {
    input: xml, encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: path.join(SCHEMAS, 'catalog.xml') },
  });
  return run.status === 0 ? undefined : run.stderr;
}

/** One record as the stand-in received it. */
export interface ReceivedRecord {
  tipo: 'alta' | 'anulacion';
  nif: string;
  numserie: string;
  fecha: string;
  huella: string;
  subsanacion?: string;
  rechazoPrevio?: string;
  recipientNif?: string;
  outcome: string;
  code?: number;
}

export interface ReceivedMessage {
  /** `VerifactuSOAP` or `RequerimientoSOAP`. */
  service: string;
  /** RefRequerimiento and FinRequerimiento of a message answering a request. */
  requerimiento?: { ref: string; fin?: string };
  nif: string;
  incidencia: boolean;
  records: ReceivedRecord[];
  at: number;
}

type Failure = 'fault-server' | 'fault-client' | 'drop';

export interface StandIn {
  /** `https://127.0.0.1:port`: VERIFACTU_ENDPOINT. */
  url: string;
  messages: ReceivedMessage[];
  /** Messages refused because they failed the schemas (each with xmllint's words); a test expects none. */
  invalid: string[];
  /** Records it holds, by `nif|numserie|fecha`. */
  held: Map<string, { estado: 'Correcta' | 'AceptadaConErrores' | 'Anulada'; idpeticion: string }>;
  /** Recipient NIFs the census does not know: their altas are rejected with 1109. */
  unknownNifs: Set<string>;
  /** TiempoEsperaEnvio of its answers (seconds). */
  wait: number;
  /** What the next messages meet instead of an answer, in order. */
  failures: Failure[];
  /** The most messages of one taxpayer it ever had in flight at once. */
  maxInFlight: number;
  /** Called as a message arrives, before it is answered (a test may hold it there). */
  onMessage?: (message: ReceivedMessage) => Promise<void> | void;
  close(): Promise<void>;
}

const child = (parent: Element, name: string): Element | undefined => {
  for (let node = parent.firstChild; node; node = node.nextSibling) if (node.nodeType === 1 && (node as Element).localName === name) return node as Element;
  return undefined;
};
const textOf = (parent: Element | undefined, ...names: string[]): string | undefined => {
  let node = parent;
  for (const name of names) node = node && child(node, name);
  return node ? (node.textContent ?? '').trim() : undefined;
};
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();

/** The Huella recomputed as the AEAT does (verifactu.md section 5), from the record's own elements. */
function recomputed(record: Element, alta: boolean): string {
  const previous = textOf(record, 'Encadenamiento', 'RegistroAnterior', 'Huella') ?? '';
  const stamp = textOf(record, 'FechaHoraHusoGenRegistro');
  if (!alta) {
    return sha256(`IDEmisorFacturaAnulada=${textOf(record, 'IDFactura', 'IDEmisorFacturaAnulada')}&NumSerieFacturaAnulada=${textOf(record, 'IDFactura', 'NumSerieFacturaAnulada')}` +
      `&FechaExpedicionFacturaAnulada=${textOf(record, 'IDFactura', 'FechaExpedicionFacturaAnulada')}&Huella=${previous}&FechaHoraHusoGenRegistro=${stamp}`);
  }
  return sha256(`IDEmisorFactura=${textOf(record, 'IDFactura', 'IDEmisorFactura')}&NumSerieFactura=${textOf(record, 'IDFactura', 'NumSerieFactura')}` +
    `&FechaExpedicionFactura=${textOf(record, 'IDFactura', 'FechaExpedicionFactura')}&TipoFactura=${textOf(record, 'TipoFactura')}&CuotaTotal=${textOf(record, 'CuotaTotal')}` +
    `&ImporteTotal=${textOf(record, 'ImporteTotal')}&Huella=${previous}&FechaHoraHusoGenRegistro=${stamp}`);
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function fault(code: string, text: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body><env:Fault>` +
    `<faultcode>${code}</faultcode><faultstring>${escape(text)}</faultstring></env:Fault></env:Body></env:Envelope>`;
}

export async function startStandIn(certificates: Certificates): Promise<StandIn> {
  let requests = 0;
  const inFlight = new Map<string, number>();
  const standIn: StandIn = {
    url: '', messages: [], invalid: [], held: new Map(), unknownNifs: new Set(), wait: 60, failures: [], maxInFlight: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  async function answer(body: string, service: string): Promise<string | 'drop'> {
    const failure = standIn.failures.shift();
    if (failure === 'drop') return 'drop';
    if (failure === 'fault-server') return fault('env:Server', 'Codigo[-1].Servicio no disponible temporalmente');
    if (failure === 'fault-client') return fault('env:Client', `Codigo[4102].${ERRORS.get(4102)}`);
    const invalid = envelopeErrors(body);
    if (invalid) {
      standIn.invalid.push(invalid);
      return fault('env:Client', `Codigo[4102].${ERRORS.get(4102)} ${invalid.slice(0, 300)}`);
    }
    const root = new DOMParser().parseFromString(body, 'text/xml').documentElement!;
    const message = child(child(root, 'Body')!, 'RegFactuSistemaFacturacion')!;
    const cabecera = child(message, 'Cabecera')!;
    const nif = textOf(cabecera, 'ObligadoEmision', 'NIF')!;
    const ref = textOf(cabecera, 'RemisionRequerimiento', 'RefRequerimiento');
    const received: ReceivedMessage = { service, ...(ref ? { requerimiento: { ref, fin: textOf(cabecera, 'RemisionRequerimiento', 'FinRequerimiento') } } : {}), nif, incidencia: textOf(cabecera, 'RemisionVoluntaria', 'Incidencia') === 'S', records: [], at: Date.now() };
    standIn.messages.push(received);
    const count = (inFlight.get(nif) ?? 0) + 1;
    inFlight.set(nif, count);
    standIn.maxInFlight = Math.max(standIn.maxInFlight, count);
    try {
      await standIn.onMessage?.(received);
    } finally {
      inFlight.set(nif, (inFlight.get(nif) ?? 1) - 1);
    }
    const idpeticion = String(202700000000 + ++requests);
    const lines: string[] = [];
    for (let node = message.firstChild; node; node = node.nextSibling) {
      if (node.nodeType !== 1 || (node as Element).localName !== 'RegistroFactura') continue;
      const record = [...Array.from((node as Element).childNodes)].find((item) => item.nodeType === 1) as Element;
      const alta = record.localName === 'RegistroAlta';
      const id = {
        nif: textOf(record, 'IDFactura', alta ? 'IDEmisorFactura' : 'IDEmisorFacturaAnulada')!,
        numserie: textOf(record, 'IDFactura', alta ? 'NumSerieFactura' : 'NumSerieFacturaAnulada')!,
        fecha: textOf(record, 'IDFactura', alta ? 'FechaExpedicionFactura' : 'FechaExpedicionFacturaAnulada')!,
      };
      const key = `${id.nif}|${id.numserie}|${id.fecha}`;
      const got: ReceivedRecord = {
        tipo: alta ? 'alta' : 'anulacion', ...id, huella: textOf(record, 'Huella')!, subsanacion: textOf(record, 'Subsanacion'),
        rechazoPrevio: textOf(record, 'RechazoPrevio'), recipientNif: textOf(record, 'Destinatarios', 'IDDestinatario', 'NIF'), outcome: 'Correcto',
      };
      received.records.push(got);
      const held = standIn.held.get(key);
      let duplicate = '';
      if (alta && held && got.subsanacion !== 'S') {
        got.outcome = 'Incorrecto';
        got.code = 3000;
        duplicate = `<sfR:RegistroDuplicado><sf:IdPeticionRegistroDuplicado>${held.idpeticion}</sf:IdPeticionRegistroDuplicado><sf:EstadoRegistroDuplicado>${held.estado}</sf:EstadoRegistroDuplicado></sfR:RegistroDuplicado>`;
      } else if (!alta && held?.estado === 'Anulada') {
        got.outcome = 'Incorrecto';
        got.code = 3000;
        duplicate = `<sfR:RegistroDuplicado><sf:IdPeticionRegistroDuplicado>${held.idpeticion}</sf:IdPeticionRegistroDuplicado><sf:EstadoRegistroDuplicado>Anulada</sf:EstadoRegistroDuplicado></sfR:RegistroDuplicado>`;
      } else if (alta && got.recipientNif && standIn.unknownNifs.has(got.recipientNif)) {
        got.outcome = 'Incorrecto';
        got.code = 1109;
      } else if (recomputed(record, alta) !== got.huella) {
        got.outcome = 'AceptadoConErrores';
        got.code = 2000;
      }
      if (got.outcome !== 'Incorrecto') standIn.held.set(key, { estado: !alta ? 'Anulada' : got.outcome === 'Correcto' ? 'Correcta' : 'AceptadaConErrores', idpeticion });
      lines.push(`<sfR:RespuestaLinea><sfR:IDFactura><sf:IDEmisorFactura>${id.nif}</sf:IDEmisorFactura><sf:NumSerieFactura>${escape(id.numserie)}</sf:NumSerieFactura>` +
        `<sf:FechaExpedicionFactura>${id.fecha}</sf:FechaExpedicionFactura></sfR:IDFactura><sfR:Operacion><sf:TipoOperacion>${alta ? 'Alta' : 'Anulacion'}</sf:TipoOperacion>` +
        `${got.subsanacion ? `<sf:Subsanacion>${got.subsanacion}</sf:Subsanacion>` : ''}${got.rechazoPrevio ? `<sf:RechazoPrevio>${got.rechazoPrevio}</sf:RechazoPrevio>` : ''}</sfR:Operacion>` +
        `<sfR:EstadoRegistro>${got.outcome}</sfR:EstadoRegistro>` +
        `${got.code ? `<sfR:CodigoErrorRegistro>${got.code}</sfR:CodigoErrorRegistro><sfR:DescripcionErrorRegistro>${escape(ERRORS.get(got.code) ?? '')}</sfR:DescripcionErrorRegistro>` : ''}` +
        `${duplicate}</sfR:RespuestaLinea>`);
    }
    const outcomes = received.records.map((record) => record.outcome);
    const estado = outcomes.every((outcome) => outcome === 'Incorrecto') ? 'Incorrecto' : outcomes.some((outcome) => outcome !== 'Correcto') ? 'ParcialmenteCorrecto' : 'Correcto';
    const csv = `A-${idpeticion.slice(-8)}${'ABCDEFGH'[requests % 8]}`;
    const name = textOf(cabecera, 'ObligadoEmision', 'NombreRazon')!;
    const xml = `<?xml version="1.0" encoding="UTF-8"?><env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Body>` +
      `<sfR:RespuestaRegFactuSistemaFacturacion xmlns:sfR="${SFR}" xmlns:sf="${SF}">` +
      `<sfR:CSV>${csv}</sfR:CSV><sfR:DatosPresentacion><sf:NIFPresentador>${nif}</sf:NIFPresentador><sf:TimestampPresentacion>2027-01-15T10:00:00+01:00</sf:TimestampPresentacion></sfR:DatosPresentacion>` +
      `<sfR:Cabecera><sf:ObligadoEmision><sf:NombreRazon>${escape(name)}</sf:NombreRazon><sf:NIF>${nif}</sf:NIF></sf:ObligadoEmision></sfR:Cabecera>` +
      `<sfR:TiempoEsperaEnvio>${standIn.wait}</sfR:TiempoEsperaEnvio><sfR:EstadoEnvio>${estado}</sfR:EstadoEnvio>${lines.join('')}` +
      `</sfR:RespuestaRegFactuSistemaFacturacion></env:Body></env:Envelope>`;
    const own = envelopeErrors(xml);
    assert.equal(own, undefined, `the stand-in's own answer fails the AEAT schemas: ${own}`);
    return xml;
  }

  const server: Server = createServer({
    key: fs.readFileSync(path.join(certificates.dir, 'server.key')),
    cert: fs.readFileSync(path.join(certificates.dir, 'server.pem')),
    ca: fs.readFileSync(certificates.caFile),
    requestCert: true,
    rejectUnauthorized: true,
  }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const service = /^\/wlpl\/TIKE-CONT\/ws\/SistemaFacturacion\/(VerifactuSOAP|RequerimientoSOAP)$/.exec(request.url ?? '')?.[1];
      if (request.method !== 'POST' || !service) {
        response.writeHead(404).end();
        return;
      }
      answer(Buffer.concat(chunks).toString('utf8'), service).then((xml) => {
        if (xml === 'drop') {
          request.socket.destroy();
          return;
        }
        response.writeHead(xml.includes(':Fault>') ? 500 : 200, { 'content-type': 'text/xml; charset=utf-8' }).end(xml);
      }, (error: Error) => response.writeHead(500).end(fault('env:Server', error.message)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  standIn.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return standIn;
}
