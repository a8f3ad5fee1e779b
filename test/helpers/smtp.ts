import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/**
 * A real SMTP server for the e-mail tests (smtp-server, the Nodemailer project's): STARTTLS
 * required (its own self-signed certificate: the service is set to `lowsecure`), AUTH PLAIN/LOGIN
 * with one user, and what a test wants of it: take messages, refuse them with a 5xx, drop the
 * connection in the middle of one, or take one whole and never answer (`hang`). `stop()` takes it down, `start()` brings it back on its port.
 */
export type SmtpMode = 'accept' | 'refuse' | 'drop' | 'hang';

export interface TestSmtp {
  port: number;
  user: string;
  password: string;
  /** Every message taken, parsed, in arrival order. */
  received: ParsedMail[];
  mode: SmtpMode;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSmtp(): Promise<TestSmtp> {
  const user = 'mailer';
  const password = 'secret-smtp-password';
  let server: SMTPServer | undefined;
  const smtp: TestSmtp = {
    port: 0,
    user,
    password,
    received: [],
    mode: 'accept',
    async start() {
      server = new SMTPServer({
        secure: false,
        authMethods: ['PLAIN', 'LOGIN'],
        // Refuses AUTH before STARTTLS: the service must secure the connection first.
        allowInsecureAuth: false,
        logger: false,
        closeTimeout: 200,
        onAuth(auth, _session, callback) {
          if (auth.username === user && auth.password === password) callback(null, { user });
          else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
        },
        onData(stream, _session, callback) {
          const chunks: Buffer[] = [];
          let dropped = false;
          stream.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            if (smtp.mode === 'drop' && !dropped) {
              dropped = true;
              // The connection ends halfway through the message: no answer to DATA.
              for (const connection of (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections) connection._socket.destroy();
            }
          });
          stream.on('end', () => {
            if (dropped || smtp.mode === 'hang') return;
            if (smtp.mode === 'refuse') return callback(Object.assign(new Error('Mailbox unavailable: policy refusal'), { responseCode: 550 }));
            simpleParser(Buffer.concat(chunks)).then((parsed) => {
              smtp.received.push(parsed);
              callback(null, `Ok: queued as T${smtp.received.length}`);
            }, callback);
          });
        },
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(smtp.port, '127.0.0.1', () => resolve());
      });
      smtp.port = (server.server.address() as AddressInfo).port;
    },
    async stop() {
      const closing = server;
      server = undefined;
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
  await smtp.start();
  return smtp;
}
