/**
 * Pairwise subject identifiers' sectors (OIDC Core 8.1, OIDC Dynamic Client Registration 2 and
 * 5; docs/api.md#pairwise-subject-identifiers). A client with `subject_type: "pairwise"` belongs
 * to the sector named by the host of its `sector_identifier_uri`, or else of its redirect URIs,
 * which must then share one host. The sector identifier document is a JSON array of URIs that
 * must hold every redirect URI of the client: so the owner of that host vouches for every client
 * that joins its sector, and its users keep one `sub` across them.
 */
import type { StoredClientMetadata } from '../../db/schema.js';
import { InvalidClientMetadata } from '../../errors.js';
import { fetchClientJson } from './client-documents.js';

export const SUBJECT_TYPES = ['public', 'pairwise'] as const;

type SectorMetadata = Pick<StoredClientMetadata, 'subject_type' | 'sector_identifier_uri' | 'redirect_uris'>;

function invalid(field: string, message: string) {
  return InvalidClientMetadata(message, { fields: { [field]: message } });
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).hostname;
  } catch {
    return '';
  }
}

/** The sector of a pairwise client; undefined for a client with public subject identifiers. */
export function sectorOf(metadata: SectorMetadata): string | undefined {
  if (metadata.subject_type !== 'pairwise') return undefined;
  return hostOf(metadata.sector_identifier_uri ?? metadata.redirect_uris[0] ?? '') || undefined;
}

/**
 * A pairwise client needs a sector: a sector_identifier_uri, or redirect URIs on one host (a
 * native app's private-use scheme has none).
 */
export function checkSector(metadata: SectorMetadata): void {
  if (metadata.subject_type !== 'pairwise' || metadata.sector_identifier_uri !== undefined) return;
  const hosts = new Set(metadata.redirect_uris.map(hostOf));
  if (hosts.size !== 1 || hosts.has('')) {
    throw invalid(
      'sector_identifier_uri',
      'subject_type pairwise needs a sector_identifier_uri unless the redirect_uris all share one host (the sector, OIDC Core 8.1)',
    );
  }
}

/**
 * Fetches the sector identifier document (OIDC Dynamic Client Registration 5) and checks that it
 * lists every redirect URI of the client.
 */
export async function verifySectorIdentifier(metadata: SectorMetadata): Promise<void> {
  const uri = metadata.sector_identifier_uri;
  if (uri === undefined) return;
  let document: unknown;
  try {
    document = await fetchClientJson(uri);
  } catch (error) {
    throw invalid('sector_identifier_uri', `sector_identifier_uri could not be fetched: ${(error as Error).message}`);
  }
  if (!Array.isArray(document) || !document.every((item) => typeof item === 'string')) {
    throw invalid('sector_identifier_uri', 'the sector_identifier_uri document must be a JSON array of redirect URIs');
  }
  const missing = metadata.redirect_uris.filter((redirect) => !document.includes(redirect));
  if (missing.length > 0) {
    throw invalid(
      'sector_identifier_uri',
      `the sector_identifier_uri document does not list the redirect URI ${missing.map((item) => `'${item}'`).join(', ')}`,
    );
  }
}
