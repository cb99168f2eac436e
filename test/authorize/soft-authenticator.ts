/**
 * A software passkey authenticator for tests without a browser: it answers the options of
 * `navigator.credentials.create` and `navigator.credentials.get` as a platform authenticator
 * would (WebAuthn Level 3 6.1 authenticator data, 6.5 "none" attestation, 6.3.3 assertion
 * signature), with P-256 keys (COSE ES256) and a signature counter per credential. The browser
 * tests use Chromium's virtual authenticator instead.
 */
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

/** What to do differently from an honest authenticator, to see it refused. */
export interface AssertionOptions {
  /** Answer with this credential (default: the first one the options allow, or the first held). */
  credentialId?: string;
  /** Leave the user-verified flag off (a security key without PIN). */
  userVerified?: boolean;
  /** Sign with this counter instead of the next one (a cloned key's, which lags). */
  counter?: number;
  /** Sign for another origin (a phishing site). */
  origin?: string;
}

type Json = Record<string, unknown>;

// A minimal CBOR encoder (RFC 8949): unsigned and negative integers, byte and text strings, maps.
function head(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  const bytes = Buffer.alloc(3);
  bytes[0] = (major << 5) | 25;
  bytes.writeUInt16BE(length, 1);
  return bytes;
}

function cbor(value: unknown): Buffer {
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value as Json);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([key, item]) => [cbor(key), cbor(item)])]);
}

const b64url = (bytes: Buffer) => bytes.toString('base64url');
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export class SoftAuthenticator {
  private readonly credentials: Credential[] = [];
  constructor(private readonly origin: string) {}

  private authData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
  }

  private clientData(type: string, challenge: string, origin = this.origin): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
  }

  /**
   * A new discoverable credential for the options of `navigator.credentials.create` (JSON form);
   * the browser's response, as JSON. `again` registers a credential this authenticator holds
   * once more, as no honest one would (excludeCredentials).
   */
  create(options: Json, again?: string): Json {
    const rp = options.rp as { id: string };
    const user = options.user as { id: string };
    const held = this.credentials.find((credential) => b64url(credential.id) === again);
    const { privateKey, publicKey } = held
      ? { privateKey: held.privateKey, publicKey: createPublicKey(held.privateKey) }
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, unknown>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const id = held?.id ?? randomBytes(16);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    const attested = Buffer.concat([Buffer.alloc(16), length, id, cbor(coseKey)]);
    const authData = this.authData(rp.id, UP | UV | AT, 0, attested);
    if (!held) this.credentials.push({ id, privateKey, rpId: rp.id, userHandle: user.id, counter: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge as string)),
        attestationObject: b64url(cbor({ fmt: 'none', attStmt: {}, authData })),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** An assertion for the options of `navigator.credentials.get` (JSON form), as the browser's JSON response. */
  get(options: Json, how: AssertionOptions = {}): Json {
    const allowed = ((options.allowCredentials as { id: string }[] | undefined) ?? []).map((credential) => credential.id);
    const wanted = how.credentialId ?? allowed[0];
    const credential = wanted ? this.credentials.find((candidate) => b64url(candidate.id) === wanted) : this.credentials[0];
    if (!credential) throw new Error('this authenticator holds no such credential');
    credential.counter += 1;
    const flags = how.userVerified === false ? UP : UP | UV;
    const authData = this.authData((options.rpId as string | undefined) ?? credential.rpId, flags, how.counter ?? credential.counter);
    const clientData = this.clientData('webauthn.get', options.challenge as string, how.origin);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), credential.privateKey);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}
