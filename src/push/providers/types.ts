/**
 * What every push provider offers the delivery worker: checking a notifier's settings when it is
 * created, and a client that sends one message and classifies the provider's answer. The worker
 * decides what an answer means for the queue (record, retry later, drop the device's token);
 * providers only translate their protocol.
 */
import type { ConnectionOptions } from 'node:tls';

export type ProviderName = 'apple' | 'google' | 'noop';

/** A notifier's settings split in what may be shown and what never leaves the server. */
export interface NotifierSettings {
  readonly visible: Record<string, string>;
  readonly secret: Record<string, string>;
}

export interface NotifierConfig {
  readonly uuid: string;
  readonly name: string;
  readonly environment: 'development' | 'production';
  readonly visible: Record<string, unknown>;
  readonly secret: Record<string, string>;
}

export interface PushMessage {
  /** Stable per notification, device and notifier: the same on every attempt (`apns-id`). */
  readonly id: string;
  readonly token: string;
  /** The notification's payload for this notifier: a text or a provider-specific object. */
  readonly payload: unknown;
  /** ms since the epoch after which the provider should not deliver any more. */
  readonly expire?: number;
}

export type PushOutcome =
  | { readonly kind: 'sent'; readonly providerId?: string }
  /** Worth another attempt later: throttled, provider unavailable, connection lost. */
  | { readonly kind: 'retry'; readonly code: string; readonly message: string; readonly retryAfterMs?: number }
  /** The token is no longer valid for this app: the device's token is removed. */
  | { readonly kind: 'unregistered'; readonly code: string; readonly message: string }
  /** Refused for good: the message or the credentials are wrong. */
  | { readonly kind: 'rejected'; readonly code: string; readonly message: string };

export interface PushClient {
  send(message: PushMessage): Promise<PushOutcome>;
  close(): Promise<void>;
}

export interface ProviderOptions {
  /** Overrides the provider's base URL (IDP_APNS_URL, IDP_FCM_URL). */
  readonly baseUrl?: string;
  /** Extra trusted certificates (tests and private gateways); NODE_EXTRA_CA_CERTS works too. */
  readonly ca?: ConnectionOptions['ca'];
  /** How long one request may take before it counts as a retryable failure. */
  readonly timeoutMs: number;
  readonly now: () => number;
}

export interface Provider {
  readonly name: ProviderName;
  /** @throws AppError 400 naming the offending field. */
  validate(body: Record<string, unknown>): Promise<NotifierSettings>;
  createClient(notifier: NotifierConfig, options: ProviderOptions): PushClient;
}

/** A retryable outcome from a network failure (connection refused, reset, timed out). */
export function networkFailure(error: unknown): PushOutcome {
  const code = (error as { code?: string }).code ?? 'NETWORK_ERROR';
  return { kind: 'retry', code, message: error instanceof Error ? error.message : String(error) };
}

/** `Retry-After` in seconds or as an HTTP date (RFC 9110 10.2.3), in ms from now. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
