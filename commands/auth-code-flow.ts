/**
 * The authorization code flow of a command-line tool (RFC 8252): a loopback redirect on
 * 127.0.0.1 at a free port, PKCE (S256), state and nonce; the user opens the printed URL, signs
 * in, and the browser comes back to the loopback server with the code, which is exchanged here.
 * openid-client does the protocol; this module only runs the loopback server and waits (bounded).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { ADMIN_CLI } from '../src/identity/clients/find.js';

export interface AuthorizationCodeFlowOptions {
  /** The idp's issuer URL (discovery is read from it). */
  issuer: string;
  /** admin-cli by default: loopback redirects on any port are registered for it. */
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  /** Shows the user where to go (default: writes the URL to stderr). */
  open?: (url: string) => void | Promise<void>;
  /** How long to wait for the browser to come back, in ms (default five minutes). */
  timeoutMs?: number;
}

export type FlowTokens = oidc.TokenEndpointResponse;

export const DEFAULT_SCOPE = 'openid profile offline_access api';
const DEFAULT_TIMEOUT_MS = 5 * 60 * 1000;
const CALLBACK_PATH = '/callback';

const PAGE = (message: string) => `<!doctype html><html><head><meta charset="utf-8"><title>idp</title></head><body><p>${message}</p></body></html>`;

function listenOnLoopback(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

/** Resolves with the first request to the callback path, or fails after `timeoutMs`. */
function waitForCallback(server: Server, redirectUri: string, timeoutMs: number): Promise<URL> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no sign-in came back within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs);
    server.on('request', (request, response) => {
      const url = new URL(request.url ?? '/', redirectUri);
      if (url.pathname !== CALLBACK_PATH) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const failed = url.searchParams.get('error');
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(
          PAGE(failed ? 'The sign-in did not succeed. You can close this window.' : 'You are signed in. You can close this window and return to the terminal.'),
        );
      clearTimeout(timer);
      resolve(url);
    });
  });
}

/** The idp at `issuer` as openid-client sees it, for admin-cli unless another client is named; plain http allowed (a local idp). */
export async function discoverIdp(options: Pick<AuthorizationCodeFlowOptions, 'issuer' | 'clientId' | 'clientSecret'>): Promise<oidc.Configuration> {
  const issuer = new URL(options.issuer);
  const auth = options.clientSecret ? oidc.ClientSecretBasic(options.clientSecret) : oidc.None();
  return oidc.discovery(
    issuer,
    options.clientId ?? ADMIN_CLI,
    undefined,
    auth,
    issuer.protocol === 'http:' ? { execute: [oidc.allowInsecureRequests] } : undefined,
  );
}

export async function runAuthorizationCodeFlow(options: AuthorizationCodeFlowOptions): Promise<FlowTokens> {
  const config = await discoverIdp(options);
  const server = createServer();
  try {
    const redirectUri = `http://127.0.0.1:${await listenOnLoopback(server)}${CALLBACK_PATH}`;
    const scope = options.scope ?? DEFAULT_SCOPE;
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = scope.split(' ').includes('openid') ? oidc.randomNonce() : undefined;
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      state,
      ...(nonce && { nonce }),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = waitForCallback(server, redirectUri, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const show = options.open ?? ((address: string) => void process.stderr.write(`Open this URL in a browser to sign in:\n\n  ${address}\n\n`));
    await show(url.toString());
    return await oidc.authorizationCodeGrant(config, await callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
