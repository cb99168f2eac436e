import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { resolveConfig, type Config } from '../../src/config.js';
import { createMailer, type MailMessage } from '../../src/mail/mailer.js';
import { linksIn, readOutbox, startSmtpServer, subjectOf, type TestSmtpServer } from './mail-helpers.js';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

function config(overrides: Partial<Config>): Config {
  return { ...resolveConfig({ db: ':memory:' }, {}), issuer: 'http://idp.test', ...overrides };
}

const MESSAGE: MailMessage = {
  to: 'alice@example.com',
  subject: 'Activate your account',
  text: 'Open http://idp.test/management/users/u1/activate?token=abc.def to activate.',
  html: '<p><a href="http://idp.test/management/users/u1/activate?token=abc.def">Activate</a></p>',
  link: 'http://idp.test/management/users/u1/activate?token=abc.def',
};

let smtp: TestSmtpServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await smtp?.close();
  smtp = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('mail over SMTP', () => {
  it('authenticates at the server from --smtp-url and delivers the message with its link, logging no link', async () => {
    smtp = await startSmtpServer();
    const { logger, lines } = capturingLogger();
    const mailer = createMailer(config({ smtpUrl: smtp.url, mailFrom: 'IdP <idp@example.org>' }), logger);
    expect(mailer.target).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    await mailer.send(MESSAGE);
    const mail = await smtp.message(0);
    expect(mail.from).toBe('idp@example.org');
    expect(mail.to).toEqual(['alice@example.com']);
    expect(subjectOf(mail.raw)).toBe('Activate your account');
    expect(linksIn(mail.raw)).toContain(MESSAGE.link);
    expect(lines.find((line) => line.msg === 'mail sent')).toMatchObject({ to: 'alice@example.com' });
    expect(JSON.stringify(lines)).not.toContain('token=');
    await mailer.close();
  });

  it('sends from no-reply@ the issuer host when --mail-from is not given', async () => {
    smtp = await startSmtpServer();
    const mailer = createMailer(config({ smtpUrl: smtp.url, issuer: 'https://login.example.net' }), capturingLogger().logger);
    await mailer.send(MESSAGE);
    expect((await smtp.message(0)).from).toBe('no-reply@login.example.net');
    await mailer.close();
  });

  it('upgrades with STARTTLS when the server offers it, and never falls back to plain text', async () => {
    // The test server's certificate is self-signed, so the upgrade must fail: proof that the
    // mailer tried TLS instead of sending the link in the clear.
    smtp = await startSmtpServer({ starttls: true });
    const { logger, lines } = capturingLogger();
    const mailer = createMailer(config({ smtpUrl: smtp.url }), logger);
    await mailer.send(MESSAGE);
    expect(smtp.received).toHaveLength(0);
    const failure = lines.find((line) => line.msg === 'mail could not be sent');
    expect(JSON.stringify(failure)).toMatch(/certificate|ETLS|ESOCKET/i);
    await mailer.close();
  });

  it('logs a failure without throwing when the server is unreachable or refuses the credentials', async () => {
    smtp = await startSmtpServer();
    const { logger, lines } = capturingLogger();
    const refused = createMailer(config({ smtpUrl: smtp.url.replace('mail-secret', 'wrong-secret') }), logger);
    await expect(refused.send(MESSAGE)).resolves.toBeUndefined();
    expect(lines.filter((line) => line.msg === 'mail could not be sent')).toHaveLength(1);
    expect(JSON.stringify(lines)).not.toContain('wrong-secret');
    await refused.close();

    const url = smtp.url;
    await smtp.close();
    smtp = undefined;
    const unreachable = createMailer(config({ smtpUrl: url }), logger);
    await unreachable.send(MESSAGE);
    expect(lines.filter((line) => line.msg === 'mail could not be sent')).toHaveLength(2);
    await unreachable.close();
  });
});

describe('mail without SMTP', () => {
  it('writes each message as an .eml file under outbox/ beside the database, readable only by its owner, and logs the link', async () => {
    dir = mkdtempSync(join(tmpdir(), 'idp-mail-'));
    const { logger, lines } = capturingLogger();
    const mailer = createMailer(config({ db: join(dir, 'idp.db') }), logger);
    expect(mailer.target).toBe(join(dir, 'outbox'));
    await mailer.send(MESSAGE);
    await mailer.send({ ...MESSAGE, subject: 'Second' });
    const messages = readOutbox(join(dir, 'outbox'));
    expect(messages.map(subjectOf)).toEqual(['Activate your account', 'Second']);
    expect(linksIn(messages[0])).toContain(MESSAGE.link);
    expect(messages[0]).toMatch(/^To: alice@example\.com/m);
    const logged = lines.filter((line) => line.msg === 'mail written to the outbox');
    expect(logged[0]).toMatchObject({ level: 30, to: 'alice@example.com', link: MESSAGE.link, file: expect.stringMatching(/\.eml$/) });
    expect(statSync(logged[0].file as string).mode & 0o777).toBe(0o600);
    await mailer.close();
  });

  it('uses a temporary data directory for :memory:, created only when the first message is written', async () => {
    const mailer = createMailer(config({ db: ':memory:' }), capturingLogger().logger);
    await mailer.send(MESSAGE);
    dir = join(mailer.target, '..');
    expect(dir.startsWith(tmpdir())).toBe(true);
    expect(readOutbox(mailer.target)).toHaveLength(1);
    await mailer.close();
  });
});
