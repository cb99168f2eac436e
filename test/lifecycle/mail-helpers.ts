/**
 * A real SMTP server on 127.0.0.1 (smtp-server) that keeps what it receives, and readers of the
 * messages the mailer wrote to its outbox.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { trackArrivals } from '../arrivals.js';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** Resolves with the nth message (0-based) once it has arrived. */
  message(index: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpServer(options: { user?: string; password?: string; starttls?: boolean } = {}): Promise<TestSmtpServer> {
  const user = options.user ?? 'mailer';
  const password = options.password ?? 'mail-secret';
  const received: ReceivedMail[] = [];
  const arrivals = trackArrivals(received);
  const server = new SMTPServer({
    // Plain SMTP with AUTH, as a relay on a private network; the STARTTLS test turns TLS on.
    disabledCommands: options.starttls ? [] : ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) callback(null, { user });
      else callback(new Error('invalid credentials'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        arrivals.arrived();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://${user}:${password}@127.0.0.1:${port}`,
    received,
    message: (index) => arrivals.nth(index),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The decoded text of a MIME message: quoted-printable soft breaks and escapes undone. */
export function decodeMail(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** Every http(s) link in a message, in order, without duplicates. */
export function linksIn(raw: string): string[] {
  const links = decodeMail(raw).match(/https?:\/\/[^\s"<>]+/g) ?? [];
  return [...new Set(links)];
}

export function subjectOf(raw: string): string {
  return /^Subject: (.*)$/m.exec(raw)?.[1] ?? '';
}

/** The messages of an outbox folder, oldest first (the mailer names files by time and order). */
export function readOutbox(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((name) => name.endsWith('.eml'))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => readFileSync(join(dir, name), 'utf8'));
}
