/**
 * The device authorization grant of a command-line tool (RFC 8628): for a terminal with no
 * browser at hand (a server over SSH, a container). The user opens the printed address on any
 * device, enters the printed code (or scans the QR code, which carries it), signs in and allows
 * the CLI; meanwhile this polls the token endpoint. openid-client does the protocol, slow_down
 * included; this module only shows where to go and turns a refusal into the CLI's error.
 */
import * as oidc from 'openid-client';
import QRCode from 'qrcode';
import { AppError } from '../src/errors.js';
import { DEFAULT_SCOPE, discoverIdp, type FlowTokens } from './auth-code-flow.js';

/** What the user must be told: where to go, the code to enter there, and for how long it works. */
export interface DevicePrompt {
  verificationUri: string;
  verificationUriComplete?: string;
  userCode: string;
  expiresIn: number;
}

export interface DeviceFlowOptions {
  /** The idp's issuer URL (discovery is read from it). */
  issuer: string;
  /** admin-cli by default. */
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  /** Shows the user where to go (default: the address, the code and, on a terminal, a QR code, on stderr). */
  show?: (prompt: DevicePrompt) => void | Promise<void>;
}

/** The prompt on stderr; the QR code (of the address with the code in it) only where a person looks at it. */
async function showOnTerminal(prompt: DevicePrompt): Promise<void> {
  const minutes = Math.round(prompt.expiresIn / 60);
  let text = `To sign in, open ${prompt.verificationUri} in a browser and enter the code\n\n  ${prompt.userCode}\n\n`;
  if (prompt.verificationUriComplete !== undefined) {
    text += `or open ${prompt.verificationUriComplete}\n`;
    if (process.stderr.isTTY) text += `or scan:\n${await QRCode.toString(prompt.verificationUriComplete, { type: 'terminal', small: true })}`;
  }
  process.stderr.write(`${text}\nThe code works for ${minutes} minutes. Waiting for you to allow it…\n`);
}

export async function runDeviceFlow(options: DeviceFlowOptions): Promise<FlowTokens> {
  const config = await discoverIdp(options);
  try {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: options.scope ?? DEFAULT_SCOPE });
    await (options.show ?? showOnTerminal)({
      verificationUri: started.verification_uri,
      verificationUriComplete: started.verification_uri_complete,
      userCode: started.user_code,
      expiresIn: started.expires_in,
    });
    return await oidc.pollDeviceAuthorizationGrant(config, started);
  } catch (error) {
    // access_denied, expired_token, …: the server's own words, with the CLI's exit code for them.
    if (error instanceof oidc.ResponseBodyError) throw new AppError(error.status, error.error, error.error_description ?? error.error);
    throw error;
  }
}
