/**
 * Push notifications of an application (docs/api.md#push-notifications): its notifiers, a test
 * notification whose state is watched as it goes, and the notifications sent before, by pages.
 */
import { dateTime, t } from '../i18n';
import { useState } from 'preact/hooks';
import { entitiesOf, request, type Entity } from '../api';
import { AppNav } from '../app-nav';
import { Heading, Problem, Table, Waiting } from '../parts';
import { Pager, usePages } from '../paging';
import { Notifiers } from '../push/notifiers';
import { SendForm, useNotifiers } from '../push/send';
import { NotificationState, stateOf } from '../push/state';

const PAGE_SIZE = '10';

/** The texts (or payload objects) a notification carries, one per notifier. */
const messageOf = (notification: Entity) =>
  Object.values((notification.payloads ?? {}) as Record<string, unknown>)
    .map((payload) => (typeof payload === 'string' ? payload : JSON.stringify(payload)))
    .join(' · ');

/** The notifications by pages; a new `round` reads the page again. */
function Notifications(props: { org: string; app: string; round: number }) {
  const { org, app } = props;
  const pages = usePages(
    (cursor) => request('get', '/{orgId}/{appId}/notifications', { params: { orgId: org, appId: app }, query: { cursor, limit: PAGE_SIZE } }),
    [org, app, props.round],
  );
  const [watched, setWatched] = useState<string>();
  const notifications = pages.value ? entitiesOf(pages.value) : [];
  return (
    <>
      <h2 class="section">{t('notifications.title')}</h2>
      <Waiting loading={pages.loading && pages.value === undefined} />
      <Problem error={pages.error} />
      {pages.value && notifications.length === 0 && <p>{t('notifications.none')}</p>}
      {notifications.length > 0 && (
        <Table
          caption={t('notifications.caption')}
          hiddenCaption
          rows={notifications}
          keyOf={(notification) => notification.uuid}
          columns={[
            { label: t('notifiers.created'), value: (notification) => dateTime(notification.created) },
            { label: t('notifications.message'), value: messageOf },
            { label: t('notification.state'), value: stateOf },
            {
              label: t('notifications.details'),
              hiddenLabel: true,
              value: (notification) => (
                <button type="button" onClick={() => setWatched(notification.uuid)} aria-pressed={watched === notification.uuid}>
                  {t('notification.receipts')}
                </button>
              ),
            },
          ]}
        />
      )}
      <Pager pages={pages} />
      {watched !== undefined && <NotificationState key={watched} org={org} app={app} id={watched} />}
    </>
  );
}

export function Push(props: { org: string; app: string }) {
  const { org, app } = props;
  const notifiers = useNotifiers(org, app);
  // A send, and each state it goes through, loads the list of notifications again.
  const [sent, setSent] = useState(0);
  return (
    <>
      <Heading>
        {t('nav.push')} <span class="muted">{t('common.in', { place: app })}</span>
      </Heading>
      <AppNav org={org} app={app} current="push" />
      <Notifiers org={org} app={app} notifiers={notifiers} />
      <SendForm org={org} app={app} notifiers={notifiers.value} onChange={() => setSent((value) => value + 1)} />
      <Notifications org={org} app={app} round={sent} />
    </>
  );
}
