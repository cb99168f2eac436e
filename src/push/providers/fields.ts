/** Reading a notifier's settings from a request body, with 400s that name the field. */
import { importPKCS8 } from 'jose';
import { IllegalArgument, RequiredProperty } from '../../errors.js';

export function requireText(body: Record<string, unknown>, field: string, names: readonly string[] = [field]): string {
  const value = names.map((name) => body[name]).find((one) => one !== undefined && one !== null);
  if (value === undefined) throw RequiredProperty(`${field} is required`, { fields: { [field]: 'required' } });
  if (typeof value !== 'string' || value.trim() === '')
    throw IllegalArgument(`${field} must be a non-empty string`, { fields: { [field]: 'must be a non-empty string' } });
  return value.trim();
}

/** A PKCS#8 PEM private key usable for `alg`. @throws 400 naming `field`. */
export async function checkPrivateKey(pem: string, alg: 'ES256' | 'RS256', field: string): Promise<void> {
  const what = alg === 'ES256' ? 'a PKCS#8 PEM EC P-256 private key (the .p8 file)' : 'a PKCS#8 PEM RSA private key';
  try {
    await importPKCS8(pem, alg);
  } catch {
    throw IllegalArgument(`${field} is not ${what}`, { fields: { [field]: `must be ${what}` } });
  }
}
