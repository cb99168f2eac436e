/**
 * The delivery worker inside `idp serve`: leases due deliveries from the queue (db/push-store.ts), sends
 * them through the notifier's provider with bounded concurrency per provider, and records every
 * answer in batches. Retryable answers go back to the queue with exponential back-off. A killed
 * worker's leases run out and are taken again; because each message keeps one id on every
 * attempt (`apns-id`), a resend of a message that was in flight at the kill is recognisable as
 * the same notification.
 *
 * Scheduling needs nothing more: a delivery is due at its notification's `deliver`, so it is
 * sent when due, or on the first poll after a restart if the server was down at that time.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createSleeper, type Sleeper } from '../sleeper.js';
import type { Deps } from '../deps.js';
import type { Logger } from '../logger.js';
import { findEntityByUuid } from '../db/entity-store.js';
import { notifierConfig } from './notifiers.js';
import { PROVIDERS } from './providers/index.js';
import type { ProviderName, PushClient, PushOutcome } from './providers/types.js';
import { hasUnfinishedDeliveries, leaseDeliveries, recoverExpiredLeases, type Delivery } from '../db/push-store.js';
import { expireDeliveries, finishNotifications, recordAttempts, type Attempt } from './queue.js';

export interface WorkerOptions {
  /** How long a lease lasts; must exceed `requestTimeoutMs`, or a slow send could be taken twice. */
  readonly leaseMs: number;
  /** How often an idle worker looks for due deliveries, expired leases and expiries. */
  readonly pollMs: number;
  /** Sends in flight at once, per provider. */
  readonly concurrency: Readonly<Record<ProviderName, number>>;
  /** Attempts per delivery before a retryable failure counts as failed. */
  readonly maxAttempts: number;
  /** Back-off after the first retryable failure; doubles each attempt, up to `retryMaxMs`. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  readonly requestTimeoutMs: number;
  /** Deliveries leased and answers recorded per transaction. */
  readonly batchSize: number;
  /** Longest an answer waits to be recorded: bounds what a crash can leave unrecorded. */
  readonly flushMs: number;
  readonly apnsUrl?: string;
  readonly fcmUrl?: string;
  /** Extra CA certificates for provider connections (tests, private gateways). */
  readonly ca?: string | string[];
}

export const WORKER_DEFAULTS: WorkerOptions = {
  // Twice the request timeout: an answer always arrives, or fails, before the lease runs out.
  leaseMs: 30_000,
  // Short enough that a new notification starts at once, long enough to cost nothing when idle.
  pollMs: 100,
  // APNs takes hundreds of concurrent streams on one connection; FCM is HTTP/1.1 per request.
  concurrency: { apple: 200, google: 100, noop: 1000 },
  maxAttempts: 5,
  // 1 s, 2 s, 4 s, 8 s: what Apple and Google ask of senders they throttle.
  retryBaseMs: 1000,
  retryMaxMs: 60_000,
  requestTimeoutMs: 15_000,
  // Each batch is one transaction during which the API waits: 250 keeps that to a few ms (the
  // push benchmark's GET median is about half that of 500 and a third of 1000), at some 10 %
  // more CPU per delivery than 1000.
  batchSize: 250,
  flushMs: 20,
};

export interface DeliveryWorker {
  /**
   * Resolves once a round that began after this call ends with nothing in flight, nothing left
   * to record and nothing leased, that is the next time the worker sleeps a whole poll interval;
   * or once it stops. (A provider found with nothing due is asked again a poll interval later by
   * `deps.now`, so a clock that stands still keeps it from being asked.)
   */
  idle(): Promise<void>;
  /** Stops leasing, lets every send in flight finish and records it, closes connections. */
  stop(): Promise<void>;
}

/** Stable per notification, device and notifier, in UUID form: the same on every attempt. */
export function messageId(delivery: Delivery): string {
  const hex = createHash('sha256').update(`${delivery.notificationUuid}/${delivery.deviceUuid}/${delivery.notifierUuid}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`.toUpperCase();
}

interface Notification {
  readonly payloads: Record<string, unknown>;
  readonly expire?: number;
}

interface NotifierClient {
  readonly name: string;
  readonly client: PushClient;
}

/** What the worker's pieces share. */
interface WorkerContext {
  readonly deps: Deps;
  readonly options: WorkerOptions;
  readonly log: Logger;
  readonly notificationOf: (delivery: Delivery) => Promise<Notification>;
  readonly clients: ClientCache;
}

export function startDeliveryWorker(deps: Deps, overrides: Partial<WorkerOptions> = {}): DeliveryWorker {
  const options: WorkerOptions = { ...WORKER_DEFAULTS, ...overrides, concurrency: { ...WORKER_DEFAULTS.concurrency, ...overrides.concurrency } };
  const context: WorkerContext = {
    deps,
    options,
    log: deps.logger.child({ component: 'push' }),
    notificationOf: createNotificationCache(deps),
    clients: createClientCache(deps, options),
  };
  const owner = randomUUID();
  const answers = createAnswerBuffer(deps, options);
  const pacer = createPacer();
  const sends = createSends(context, answers, () => pacer.wake());
  // When each provider that last had nothing due may be asked again: once per poll interval, not
  // on every round of a send through another provider (each asking is a transaction).
  const idleUntil = new Map<ProviderName, number>();
  let stopping = false;

  async function run(): Promise<void> {
    let nextSweep = 0;
    while (!stopping) {
      pacer.startRound();
      try {
        // Nothing in flight, nothing to record and nothing queued or leased: a round would open
        // its transactions (a sweep and a lease per provider) only to change nothing. One read
        // instead keeps an idle server idle.
        if (sends.size === 0 && answers.size === 0 && !(await hasUnfinishedDeliveries(deps.db))) {
          pacer.answerIdle(stopping);
          await pacer.pause(options.pollMs);
          continue;
        }
        if (deps.now() >= nextSweep) {
          await sweep(context);
          nextSweep = deps.now() + options.pollMs;
          await yieldToRequests();
        }
        if (answers.isDue()) {
          await answers.flush();
          await yieldToRequests();
        }
        if (await leaseRound(context, owner, sends, idleUntil)) {
          await yieldToRequests();
          continue;
        }
        // Nothing new to send and nothing in flight: what was answered is recorded now.
        if (answers.size > 0 && sends.size === 0) {
          await answers.flush();
          await yieldToRequests();
          continue;
        }
        // Waiting for answers (each one wakes the loop), for the flush deadline, or for the next
        // poll, rather than asking the queue again on every turn of the event loop.
        if (sends.size === 0 && answers.size === 0) pacer.answerIdle(stopping);
        await pacer.pause(answers.size > 0 ? answers.msUntilDue() : options.pollMs);
      } catch (error) {
        context.log.error({ err: error }, 'the delivery worker failed a round; retrying');
        await pacer.pause(options.pollMs);
      }
    }
  }

  const running = run();
  return {
    idle() {
      return pacer.waitIdle(stopping);
    },
    async stop() {
      stopping = true;
      pacer.wake();
      await running;
      pacer.answerIdle(stopping);
      await sends.settle();
      while (answers.size > 0) await answers.flush();
      await context.clients.closeAll();
    },
  };
}

/**
 * The notification of a delivery, read once for all the sends of a lease (which start together)
 * and remembered: payloads never change after acceptance.
 */
function createNotificationCache(deps: Deps): (delivery: Delivery) => Promise<Notification> {
  const notifications = new Map<string, Notification>();
  // Reads of a notification in progress, so that the sends of one lease read it once.
  const reading = new Map<string, Promise<Notification>>();

  async function readNotification(delivery: Delivery): Promise<Notification> {
    const row = await findEntityByUuid(deps.db, delivery.appUuid, delivery.notificationUuid);
    return {
      payloads: (row?.properties.payloads ?? {}) as Record<string, unknown>,
      expire: typeof row?.properties.expire === 'number' ? row.properties.expire : undefined,
    };
  }

  function remember(uuid: string, notification: Notification): Notification {
    // Payloads never change after acceptance; the cache only needs bounding.
    if (notifications.size > 10_000) notifications.clear();
    notifications.set(uuid, notification);
    return notification;
  }

  return async function notificationOf(delivery: Delivery): Promise<Notification> {
    const uuid = delivery.notificationUuid;
    const known = notifications.get(uuid);
    if (known !== undefined) return known;
    // The expiry sweep asks inside its transaction. A read started outside it (by a send) waits
    // for that transaction to end on SQLite, so awaiting it there would never end: read anew.
    if (deps.db.$client.inTransaction()) return remember(uuid, await readNotification(delivery));
    let read = reading.get(uuid);
    if (read === undefined) {
      read = readNotification(delivery).finally(() => reading.delete(uuid));
      reading.set(uuid, read);
    }
    return remember(uuid, await read);
  };
}

interface ClientCache {
  /**
   * The notifier's client, rebuilt when the notifier was changed; undefined once it is deleted.
   * The notifier is read again at most once per poll interval, not for every message. Only sends
   * ask, never a transaction (which must not wait on a check started outside it, see
   * createNotificationCache).
   */
  clientOf(delivery: Delivery): Promise<NotifierClient | undefined>;
  /** The name of a notifier whose client is known. */
  nameOf(notifierUuid: string): string | undefined;
  closeAll(): Promise<void>;
}

/** One client per notifier, with its connections, for as long as the notifier is unchanged. */
function createClientCache(deps: Deps, options: WorkerOptions): ClientCache {
  const clients = new Map<string, NotifierClient & { modified: number; checkedAt: number }>();
  // Reads of a notifier in progress, by notifier: the sends of one lease start together, and each
  // would otherwise read the notifier again and build (and leak) a client of its own.
  const checking = new Map<string, Promise<NotifierClient | undefined>>();

  /** Reads the notifier again: keeps, rebuilds or drops its client (one check per notifier at a time). */
  async function checkClient(delivery: Delivery): Promise<NotifierClient | undefined> {
    const row = await findEntityByUuid(deps.db, delivery.appUuid, delivery.notifierUuid);
    // Read after the await: the entry as it is now, not as it was when the check began.
    const cached = clients.get(delivery.notifierUuid);
    if (row === undefined) {
      if (cached !== undefined) void cached.client.close();
      clients.delete(delivery.notifierUuid);
      return undefined;
    }
    if (cached !== undefined && cached.modified === row.modified) {
      cached.checkedAt = deps.now();
      return cached;
    }
    if (cached !== undefined) void cached.client.close();
    const provider = PROVIDERS.get(delivery.provider as ProviderName);
    if (provider === undefined) return undefined;
    const baseUrl = provider.name === 'apple' ? options.apnsUrl : provider.name === 'google' ? options.fcmUrl : undefined;
    const client = provider.createClient(await notifierConfig(deps.db, row), { baseUrl, ca: options.ca, timeoutMs: options.requestTimeoutMs, now: deps.now });
    const entry = { modified: row.modified, checkedAt: deps.now(), name: row.name ?? row.uuid, client };
    clients.set(delivery.notifierUuid, entry);
    return entry;
  }

  return {
    clientOf(delivery) {
      const cached = clients.get(delivery.notifierUuid);
      if (cached !== undefined && deps.now() - cached.checkedAt < options.pollMs) return Promise.resolve(cached);
      let check = checking.get(delivery.notifierUuid);
      if (check === undefined) {
        check = checkClient(delivery).finally(() => checking.delete(delivery.notifierUuid));
        checking.set(delivery.notifierUuid, check);
      }
      return check;
    },
    nameOf: (notifierUuid) => clients.get(notifierUuid)?.name,
    async closeAll() {
      await Promise.allSettled([...clients.values()].map(({ client }) => client.close()));
      clients.clear();
    },
  };
}

function payloadFor(notification: Notification, notifierName: string, notifierUuid: string): unknown {
  const key = Object.keys(notification.payloads).find((one) => one.toLowerCase() === notifierName.toLowerCase() || one === notifierUuid);
  return key === undefined ? undefined : notification.payloads[key];
}

async function describe(context: WorkerContext, delivery: Delivery): Promise<{ notifierName: string; payload: unknown }> {
  const { deps, clients, notificationOf } = context;
  const notifierName =
    clients.nameOf(delivery.notifierUuid) ?? (await findEntityByUuid(deps.db, delivery.appUuid, delivery.notifierUuid))?.name ?? delivery.notifierUuid;
  return { notifierName, payload: payloadFor(await notificationOf(delivery), notifierName, delivery.notifierUuid) };
}

function backoff(context: WorkerContext, delivery: Delivery, outcome: PushOutcome): number | undefined {
  const { options, deps } = context;
  if (outcome.kind !== 'retry' || delivery.attempts >= options.maxAttempts) return undefined;
  const exponential = Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** (delivery.attempts - 1));
  return deps.now() + (outcome.retryAfterMs ?? exponential);
}

/** Sends one delivery through its notifier's client; the answer, or why it could not be sent. */
async function attempt(context: WorkerContext, delivery: Delivery): Promise<Attempt> {
  const target = await context.clients.clientOf(delivery);
  const { notifierName, payload } = await describe(context, delivery);
  let outcome: PushOutcome;
  if (target === undefined) outcome = { kind: 'rejected', code: 'NOTIFIER_NOT_FOUND', message: 'the notifier was deleted' };
  else if (payload === undefined) outcome = { kind: 'rejected', code: 'NO_PAYLOAD', message: `the notification has no payload for '${notifierName}'` };
  else {
    try {
      const { expire } = await context.notificationOf(delivery);
      outcome = await target.client.send({ id: messageId(delivery), token: delivery.token, payload, expire });
    } catch (error) {
      outcome = { kind: 'rejected', code: 'PROVIDER_ERROR', message: error instanceof Error ? error.message : String(error) };
    }
  }
  if (outcome.kind !== 'sent') context.log.debug({ delivery: delivery.id, code: outcome.code }, outcome.message);
  return { delivery, outcome, notifierName, payload, retryAt: backoff(context, delivery, outcome) };
}

interface AnswerBuffer {
  readonly size: number;
  add(attempt: Attempt): void;
  /** A whole batch waits, or an answer has waited `flushMs`. */
  isDue(): boolean;
  /** How long until the oldest answer has waited `flushMs`. */
  msUntilDue(): number;
  /** Records up to one batch of answers in one transaction. */
  flush(): Promise<void>;
}

/** Answers waiting to be recorded: in batches, none longer than `flushMs`. */
function createAnswerBuffer(deps: Deps, options: WorkerOptions): AnswerBuffer {
  const answers: Attempt[] = [];
  let oldestAnswer = 0;
  return {
    get size() {
      return answers.length;
    },
    add(attempt) {
      if (answers.length === 0) oldestAnswer = deps.now();
      answers.push(attempt);
    },
    isDue: () => answers.length >= options.batchSize || (answers.length > 0 && deps.now() - oldestAnswer >= options.flushMs),
    msUntilDue: () => Math.max(0, options.flushMs - (deps.now() - oldestAnswer)),
    async flush() {
      if (answers.length === 0) return;
      const batch = answers.splice(0, options.batchSize);
      try {
        // The queue's statements run on deps.db; called inside this transaction, they are part of it.
        await deps.db.transaction(async () => {
          const now = deps.now();
          await recordAttempts(deps.db, batch, now);
          await finishNotifications(deps.db, new Set(batch.map((attempt) => attempt.delivery.notificationUuid)), now);
        });
      } catch (error) {
        // Kept for the next round: an answer never recorded would be sent again once its lease
        // ran out (a transaction PostgreSQL still refused after its retries, under contention).
        answers.unshift(...batch);
        throw error;
      }
    },
  };
}

interface Sends {
  /** Sends in flight. */
  readonly size: number;
  /** Sends in flight through one provider. */
  busy(provider: ProviderName): number;
  /** Starts a send; its answer goes to the buffer and wakes the run loop. */
  dispatch(provider: ProviderName, delivery: Delivery): void;
  /** Resolves once every send in flight has ended. */
  settle(): Promise<void>;
}

function createSends(context: WorkerContext, answers: AnswerBuffer, wake: () => void): Sends {
  const inFlight = new Map<ProviderName, number>([...PROVIDERS.keys()].map((name) => [name, 0]));
  const sending = new Set<Promise<void>>();
  return {
    get size() {
      return sending.size;
    },
    busy: (provider) => inFlight.get(provider) ?? 0,
    dispatch(provider, delivery) {
      inFlight.set(provider, (inFlight.get(provider) ?? 0) + 1);
      // Recorded by the run loop, not here: answers that arrive together (noop answers at once)
      // would otherwise be written in the same turn of the event loop as the lease that sent them.
      const done: Promise<void> = attempt(context, delivery)
        .then((answer) => {
          context.deps.metrics.pushDeliveries.inc({ provider, outcome: answer.outcome.kind });
          answers.add(answer);
        })
        .catch((error: unknown) => context.log.error({ err: error, delivery: delivery.id }, 'recording a push attempt failed'))
        .finally(() => {
          inFlight.set(provider, (inFlight.get(provider) ?? 0) - 1);
          sending.delete(done);
          wake();
        });
      sending.add(done);
    },
    async settle() {
      await Promise.allSettled([...sending]);
    },
  };
}

/** Puts back the leases that ran out and records what expired unsent, in one transaction. */
async function sweep(context: WorkerContext): Promise<void> {
  const { deps } = context;
  await deps.db.transaction(async (tx) => {
    const now = deps.now();
    await recoverExpiredLeases(tx, now);
    await finishNotifications(deps.db, await expireDeliveries(deps.db, now, (delivery) => describe(context, delivery)), now);
  });
}

/**
 * Leases what each provider has room for; true when anything was leased. A busy provider is
 * topped up once a quarter of its slots are free, not after every answer, so leases come in
 * batches rather than one transaction per message.
 */
async function leaseRound(context: WorkerContext, owner: string, sends: Sends, idleUntil: Map<ProviderName, number>): Promise<boolean> {
  const { deps, options } = context;
  let leasedAny = false;
  for (const provider of PROVIDERS.keys()) {
    const busy = sends.busy(provider);
    const room = Math.min(options.batchSize, options.concurrency[provider] - busy);
    if (room <= 0 || (busy > 0 && room < options.concurrency[provider] / 4)) continue;
    if ((idleUntil.get(provider) ?? 0) > deps.now()) continue;
    const leased = await deps.db.transaction(async () => await leaseDeliveries(deps.db, provider, room, deps.now(), owner, options.leaseMs));
    if (leased.length === 0) idleUntil.set(provider, deps.now() + options.pollMs);
    for (const delivery of leased) sends.dispatch(provider, delivery);
    leasedAny ||= leased.length > 0;
  }
  return leasedAny;
}

/**
 * Lets the event loop run: the worker shares its thread with the API, and every transaction
 * blocks it, so requests get in between two transactions rather than after a whole round.
 */
function yieldToRequests(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface Pacer extends Sleeper {
  /** A round of the run loop begins. */
  startRound(): void;
  /** Resolves once answerIdle() is called in a round begun after this call (at once when stopping). */
  waitIdle(stopping: boolean): Promise<void>;
  /** Answers the callers of waitIdle() that asked before this round began; all of them once stopping. */
  answerIdle(stopping: boolean): void;
}

/** The run loop's sleeps and rounds, and the callers of idle() waiting for a round to find nothing to do. */
function createPacer(): Pacer {
  const sleeper = createSleeper();
  // Rounds of the run loop begun so far, and callers of idle() with the round under way when
  // they asked: only a later round may answer them.
  let round = 0;
  let idleWaiters: { round: number; resolve: () => void }[] = [];

  function answerIdle(stopping: boolean): void {
    const answered = idleWaiters.filter((waiter) => stopping || waiter.round < round);
    idleWaiters = idleWaiters.filter((waiter) => !answered.includes(waiter));
    for (const waiter of answered) waiter.resolve();
  }

  return {
    startRound() {
      round++;
    },
    pause: sleeper.pause,
    wake: sleeper.wake,
    waitIdle(stopping) {
      return new Promise((resolve) => {
        idleWaiters.push({ round, resolve });
        if (stopping) answerIdle(stopping);
      });
    },
    answerIdle,
  };
}
