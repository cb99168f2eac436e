/**
 * The prompts, driven through a real pseudo-terminal (test/cli/terminal.ts).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../spawn.js';
import { DEMO_FIXTURES, loginDemo, startCli, type Cli } from './helpers.js';
import { openTerminal, shellWord, type Terminal } from './terminal.js';

let cli: Cli;
let terminal: Terminal;
beforeAll(async () => {
  cli = await startCli();
  terminal = openTerminal('cli-test');
});
afterAll(async () => {
  terminal.close();
  await cli.stop();
});

/** Starts `idp ARGS` in a terminal; returns the session name. The exit code is printed after it. */
function startInTerminal(args: string[], url = cli.url): string {
  const command = [process.execPath, BIN, '--url', url, ...args].map(shellWord).join(' ');
  return terminal.start(command, { env: { XDG_CONFIG_HOME: cli.configHome, NO_COLOR: '1' } });
}

const waitFor = (name: string, pattern: RegExp) => terminal.waitFor(name, pattern);
const type = (name: string, ...keys: string[]) => terminal.type(name, ...keys);

describe('prompts on a terminal', () => {
  it('login asks for the username and the hidden password', async () => {
    const s = startInTerminal(['login', '--profile', 'tty']);
    await waitFor(s, /username:/);
    type(s, 'demo', 'Enter');
    await waitFor(s, /password:/);
    type(s, 'demo-password', 'Enter');
    const text = await waitFor(s, /EXIT:\d+/);
    expect(text).toContain('EXIT:0');
    expect(text).toContain(`logged in to ${cli.url} as demo (profile tty); organization demo`);
    expect(text).not.toContain('demo-password');
    terminal.kill(s);
  });

  it('app delete offers the applications of the organization and confirms', async () => {
    await loginDemo(cli);
    await cli.run(['app', 'create', 'doomed']);
    const s = startInTerminal(['app', 'delete']);
    await waitFor(s, /application:[\s\S]*sandbox[\s\S]*doomed/);
    type(s, 'Down', 'Enter');
    await waitFor(s, /Delete application demo\/doomed and all its data\?/);
    type(s, 'y', 'Enter');
    const text = await waitFor(s, /EXIT:\d+/);
    expect(text).toContain('deleted application demo/doomed');
    expect(text).toContain('EXIT:0');
    terminal.kill(s);
    expect((await cli.json(['app', 'list'])).entities.map((app: { applicationName: string }) => app.applicationName)).toEqual(['sandbox']);
  });

  it('answering no to the confirmation deletes nothing', async () => {
    const s = startInTerminal(['app', 'delete', 'sandbox']);
    await waitFor(s, /Delete application demo\/sandbox/);
    type(s, 'n', 'Enter');
    const text = await waitFor(s, /EXIT:\d+/);
    expect(text).toContain('error: cancelled');
    expect(text).toContain('EXIT:2');
    terminal.kill(s);
    expect((await cli.json(['app', 'list'])).count).toBe(1);
  });

  it('fixtures apply draws its progress on the terminal and clears it for the summary', async () => {
    const s = startInTerminal(['fixtures', 'apply', DEMO_FIXTURES]);
    const text = await waitFor(s, /EXIT:\d+/);
    expect(text).toMatch(/^nothing to change: created 0, unchanged 2, failed 0\nEXIT:0$/m);
    expect(text).not.toContain('░');
    terminal.kill(s);
  });

  it('a missing organization name is asked for', async () => {
    const s = startInTerminal(['org', 'create', '--username', 'tty', '--name', 'Tty', '--email', 'tty@example.com']);
    await waitFor(s, /organization name:/);
    type(s, 'ttyorg', 'Enter');
    await waitFor(s, /owner's password:/);
    type(s, 'tty-password', 'Enter');
    const text = await waitFor(s, /EXIT:\d+/);
    expect(text).toMatch(/orgname +ttyorg/);
    terminal.kill(s);
  });

  it('--all shows its progress on stderr when the pages take more than a second, then clears it', async () => {
    // A server that is slow to answer: three pages of two, 700 ms each.
    const slow = createServer((req, res) => {
      const cursor = new URL(req.url!, 'http://x').searchParams.get('cursor');
      const page = cursor === null ? 0 : Number(cursor);
      const entities = [0, 1].map((i) => ({ type: 'thing', name: `thing-${page * 2 + i}`, uuid: `u-${page * 2 + i}` }));
      const body = { action: 'get', entities, count: 2, ...(page < 2 ? { cursor: String(page + 1) } : {}) };
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)), 700);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
      const s = startInTerminal(['entity', 'list', 'things', '--all', '--org', 'demo', '--app', 'sandbox', '--token', 'x'], url);
      await waitFor(s, /^4 fetched…/m);
      const text = await waitFor(s, /EXIT:\d+/);
      expect(text).toContain('EXIT:0');
      expect(text).toMatch(/^TYPE +NAME +UUID +CREATED\n(thing +thing-\d +u-\d *\n){6}6 shown, no more\n/m);
      expect(text).not.toContain('fetched');
      terminal.kill(s);
    } finally {
      slow.close();
    }
  });
});
