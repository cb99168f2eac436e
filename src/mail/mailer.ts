/**
 * Outgoing mail (docs/api.md#account-lifecycle). With `--smtp-url` messages go through that server
 * with nodemailer, which upgrades to TLS by STARTTLS whenever the server offers it (`smtps://` for
 * implicit TLS). Without it each message is written as an `.eml` file to `outbox/` in the data
 * directory, so a local developer can open it or follow its link from the log.
 *
 * Sending never throws at the caller: a password-reset answer must not depend on whether a mail
 * went out (or on how long that took), so failures are logged and the caller moves on.
 */
import { mkdtempSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The link the message carries; logged only when mail goes to the outbox. */
  link: string;
}

export interface Mailer {
  /** Where mail goes: the SMTP server (host and port only) or the outbox folder. */
  readonly target: string;
  /** Hands the message over; resolves when it was sent or has failed (and was logged). */
  send(message: MailMessage): Promise<void>;
  /** Resolves when every message handed over so far has been sent or has failed. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

type Deliver = (envelope: { from: string; to: string; subject: string; text: string; html: string }) => Promise<string | undefined>;

/** The data directory: beside the database file, or a fresh temporary one for `:memory:`. */
export function dataDirectory(config: Config): string {
  return config.db === ':memory:' ? mkdtempSync(join(tmpdir(), 'idp-')) : dirname(resolve(config.db));
}

function senderOf(config: Config): string {
  if (config.mailFrom) return config.mailFrom;
  const host = config.issuer ? new URL(config.issuer).hostname : 'localhost';
  return `idp <no-reply@${host}>`;
}

export function createMailer(config: Config, logger: Logger): Mailer {
  const pending = new Set<Promise<void>>();
  const delivery = config.smtpUrl ? smtpDelivery(config.smtpUrl) : outboxDelivery(config);
  const idle = async () => {
    while (pending.size > 0) await Promise.all(pending);
  };

  return {
    get target() {
      return delivery.target;
    },
    send(message) {
      const sending = delivery
        .deliver({ from: senderOf(config), to: message.to, subject: message.subject, text: message.text, html: message.html })
        .then((file) => {
          if (file === undefined) {
            logger.info({ to: message.to, subject: message.subject }, 'mail sent');
          } else {
            // No SMTP server is configured, so this is local development: the link is logged so
            // the developer can follow it. With --smtp-url links never reach the log.
            logger.info({ to: message.to, subject: message.subject, file, link: message.link }, 'mail written to the outbox');
          }
        })
        .catch((error: unknown) => {
          logger.error(
            { to: message.to, subject: message.subject, err: { message: (error as Error).message, code: (error as { code?: string }).code } },
            'mail could not be sent',
          );
        })
        .finally(() => pending.delete(sending));
      pending.add(sending);
      return sending;
    },
    idle,
    async close() {
      await idle();
      delivery.close();
    },
  };
}

type Nodemailer = typeof import('nodemailer');

/**
 * nodemailer is imported on the first message, not at start: most servers mail rarely, and the
 * library is a noticeable part of start-up time.
 */
function lazyTransport(create: (nodemailer: Nodemailer) => Transporter): { get(): Promise<Transporter>; close(): void } {
  let transport: Promise<Transporter> | undefined;
  return {
    get: () => (transport ??= import('nodemailer').then(create)),
    close: () => void transport?.then((opened) => opened.close()),
  };
}

function smtpDelivery(smtpUrl: string): { deliver: Deliver; target: string; close(): void } {
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport(smtpUrl));
  const url = new URL(smtpUrl);
  return {
    target: `${url.protocol}//${url.host}`,
    deliver: async (envelope) => {
      await (await transport.get()).sendMail(envelope);
      return undefined;
    },
    close: () => transport.close(),
  };
}

function outboxDelivery(config: Config): { deliver: Deliver; readonly target: string; close(): void } {
  // Found on first use, so a `:memory:` server that sends nothing leaves no temporary folder.
  let outbox: string | undefined;
  const outboxPath = () => (outbox ??= join(dataDirectory(config), 'outbox'));
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }));
  let sequence = 0;
  return {
    get target() {
      return outboxPath();
    },
    deliver: async (envelope) => {
      const info = await (await transport.get()).sendMail(envelope);
      await mkdir(outboxPath(), { recursive: true, mode: 0o700 });
      // Named by time and order of sending, so a directory listing reads oldest first.
      const stamp = `${new Date().toISOString().replace(/[:.]/g, '-')}-${String(++sequence).padStart(6, '0')}`;
      const file = join(outboxPath(), `${stamp}-${randomBytes(4).toString('hex')}.eml`);
      // The links in a message are secrets: only the owner of the data directory may read them.
      await writeFile(file, info.message, { mode: 0o600 });
      return file;
    },
    close: () => transport.close(),
  };
}
