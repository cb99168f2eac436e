/**
 * One notification as it goes (docs/api.md#push-notifications): its state, read again every
 * second until it is final (queued → sent → delivered or failed), its counts, and a receipt per
 * device with when it was sent or the provider's error.
 */
import { dateTime, t } from '../i18n';
import type { MessageKey } from '../messages';
import { useEffect } from 'preact/hooks';
import { entitiesOf, request, type Entity } from '../api';
import { useLoad } from '../load';
import { Problem, Table, Waiting } from '../parts';

const POLL_MS = 1000;
// Receipts shown at once: a test send reaches a few devices.
const RECEIPTS = '50';

/** What each state means to the one who sent it. */
const STATES: Record<string, MessageKey> = {
  CREATED: 'notification.state.queued',
  SCHEDULED: 'notification.state.scheduled',
  STARTED: 'notification.state.sending',
  FINISHED: 'notification.state.delivered',
  FAILED: 'notification.state.failed',
  EXPIRED: 'notification.state.expired',
  CANCELED: 'notification.state.canceled',
};
const FINAL = new Set(['FINISHED', 'FAILED', 'EXPIRED', 'CANCELED']);

/** When a receipt's delivery was sent, or the provider's error. */
const resultOf = (receipt: Entity) =>
  receipt.errorCode === undefined
    ? t('notification.sent_at', { when: dateTime(Number(receipt.sent)) })
    : t('notification.error', { code: String(receipt.errorCode), message: String(receipt.errorMessage ?? '') });

export function stateOf(notification: Entity): string {
  const state = String(notification.state);
  return state in STATES ? t(STATES[state]) : state.toLowerCase();
}

/** `onChange` is told each new state (a list of notifications shows it too). */
export function NotificationState(props: { org: string; app: string; id: string; onChange?: () => void }) {
  const { org, app, id } = props;
  const params = { orgId: org, appId: app, id };
  const read = useLoad(async () => {
    const [notification, receipts] = await Promise.all([
      request('get', '/{orgId}/{appId}/notifications/{id}', { params }),
      request('get', '/{orgId}/{appId}/{id}/*/receipts', { params, query: { limit: RECEIPTS } }),
    ]);
    return { notification: entitiesOf(notification)[0], receipts: entitiesOf(receipts) };
  }, [org, app, id]);
  const state = read.value?.notification.state as string | undefined;
  useEffect(() => {
    if (state !== undefined) props.onChange?.();
  }, [state]);
  useEffect(() => {
    if (read.loading || state === undefined || FINAL.has(state)) return;
    const timer = setTimeout(read.reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [read.loading, state]);
  const notification = read.value?.notification;
  const statistics = notification?.statistics as { sent?: number; errors?: number } | undefined;
  return (
    <section class="panel" aria-labelledby="notification-title">
      <h2 id="notification-title">
        {t('notification.title')} <code class="mono">{id}</code>
      </h2>
      <Waiting loading={read.value === undefined && read.loading} />
      <Problem error={read.error} />
      {notification && (
        <dl class="facts">
          <dt>{t('notification.state')}</dt>
          <dd>
            <strong id="notification-state" role="status">
              {stateOf(notification)}
            </strong>{' '}
            <span class="muted">({state})</span>
          </dd>
          <dt>{t('nav.devices')}</dt>
          <dd>
            {t('notification.counts', { expected: String(notification.expectedCount ?? 0), sent: statistics?.sent ?? 0, failed: statistics?.errors ?? 0 })}
          </dd>
        </dl>
      )}
      {read.value && read.value.receipts.length > 0 && (
        <Table
          caption={t('notification.receipts')}
          rows={read.value.receipts}
          keyOf={(receipt) => receipt.uuid}
          columns={[
            { label: t('notification.device'), value: (receipt) => <span class="mono">{String(receipt.device ?? '')}</span> },
            { label: t('send.notifier'), value: (receipt) => String(receipt.notifierName ?? receipt.notifier ?? '') },
            { label: t('notification.result'), value: resultOf },
          ]}
        />
      )}
    </section>
  );
}
