/**
 * What happened in an application (docs/api.md#activities-feeds-and-events): its users'
 * activities, and its events, among them the audit trail of second factors (category
 * `security`, docs/api.md#second-factors). Each is filtered by a query the form writes
 * (docs/api.md#queries-and-paging) and read by pages, newest first.
 */
import { dateTime, t } from '../i18n';
import type { MessageKey } from '../messages';
import { useState } from 'preact/hooks';
import { entitiesOf, request, type Entity } from '../api';
import { TextField } from '../access/parts';
import { AppNav } from '../app-nav';
import { Heading, Problem, Table, Waiting, type Column } from '../parts';
import { Pager, usePages } from '../paging';

const PAGE_SIZE = '20';

/** A string literal of the query language: in single quotes, `'` and `\` escaped. */
const quoted = (value: string) => `'${value.replace(/[\\']/g, '\\$&')}'`;

interface Filter {
  name: string;
  label: MessageKey;
  /** A time is entered as the browser's local date and time, and compared in ms since the epoch. */
  time?: boolean;
  condition: (value: string) => string;
}

/** The query of the filled filters, joined by `and`; none filled, no query. */
function queryOf(filters: readonly Filter[], values: Record<string, string>): string | undefined {
  const conditions = filters.filter((filter) => (values[filter.name] ?? '').trim() !== '').map((filter) => filter.condition(values[filter.name].trim()));
  return conditions.length === 0 ? undefined : conditions.join(' and ');
}

function Feed(props: { org: string; app: string; collection: string; title: string; filters: readonly Filter[]; columns: readonly Column<Entity>[] }) {
  const { org, app, collection } = props;
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [ql, setQl] = useState<string>();
  const pages = usePages(
    (cursor) => request('get', '/{orgId}/{appId}/{collection}', { params: { orgId: org, appId: app, collection }, query: { ql, cursor, limit: PAGE_SIZE } }),
    [org, app, collection, ql],
  );
  const entities = pages.value ? entitiesOf(pages.value) : [];
  const titleId = `${collection}-title`;
  const filter = (event: Event) => {
    event.preventDefault();
    setQl(queryOf(props.filters, draft));
  };
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{props.title}</h2>
      <form class="filters" onSubmit={filter} aria-label={t('activity.filter_named', { title: props.title })}>
        {props.filters.map((field) =>
          field.time ? (
            <div class="field" key={field.name}>
              <label for={`${collection}-${field.name}`}>{t(field.label)}</label>
              <input
                id={`${collection}-${field.name}`}
                type="datetime-local"
                value={draft[field.name] ?? ''}
                onInput={(event) => setDraft({ ...draft, [field.name]: event.currentTarget.value })}
              />
            </div>
          ) : (
            <TextField
              key={field.name}
              id={`${collection}-${field.name}`}
              label={t(field.label)}
              value={draft[field.name] ?? ''}
              onInput={(value) => setDraft({ ...draft, [field.name]: value })}
              optional
            />
          ),
        )}
        <button type="submit">{t('activity.filter')}</button>
      </form>
      {ql !== undefined && (
        <p class="muted">
          {t('activity.query')} <code class="mono">{ql}</code>
        </p>
      )}
      <Waiting loading={pages.loading} />
      <Problem error={pages.error} />
      {pages.value && entities.length === 0 && <p>{ql === undefined ? t('activity.nothing_yet') : t('activity.nothing_matches')}</p>}
      {entities.length > 0 && (
        <Table
          caption={t('activity.newest_first', { title: props.title })}
          hiddenCaption
          columns={props.columns}
          rows={entities}
          keyOf={(entity) => entity.uuid}
        />
      )}
      <Pager pages={pages} />
    </section>
  );
}

const since = (property: string): Filter => ({
  name: 'since',
  label: 'activity.since',
  time: true,
  condition: (value) => `${property} >= ${new Date(value).getTime()}`,
});
const text = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
const when = (ms: unknown) => (typeof ms === 'number' ? dateTime(ms) : '');

const ACTIVITY_FILTERS: readonly Filter[] = [
  { name: 'verb', label: 'activity.verb', condition: (value) => `verb = ${quoted(value)}` },
  { name: 'actor', label: 'activity.actor_username', condition: (value) => `actor.username = ${quoted(value)}` },
  since('created'),
];
const activityColumns = (): Column<Entity>[] => [
  { label: t('activity.when'), value: (activity) => when(activity.published ?? activity.created) },
  { label: t('activity.actor'), value: (activity) => text((activity.actor as { username?: string; displayName?: string } | undefined)?.username) },
  { label: t('activity.verb'), value: (activity) => text(activity.verb) },
  { label: t('activity.content'), value: (activity) => text(activity.content ?? activity.title) },
];

const EVENT_FILTERS: readonly Filter[] = [
  { name: 'category', label: 'activity.category_hint', condition: (value) => `category = ${quoted(value)}` },
  { name: 'action', label: 'activity.action_hint', condition: (value) => `action = ${quoted(value)}` },
  { name: 'user', label: 'activity.user_uuid', condition: (value) => `user = ${quoted(value)}` },
  since('timestamp'),
];
const eventColumns = (): Column<Entity>[] => [
  { label: t('activity.when'), value: (event) => when(event.timestamp ?? event.created) },
  { label: t('activity.category'), value: (event) => text(event.category) },
  { label: t('activity.action'), value: (event) => text(event.action) },
  { label: t('activity.what'), value: (event) => text(event.title) },
  { label: t('activity.user'), value: (event) => text(event.user) },
];

export function Activity(props: { org: string; app: string }) {
  const { org, app } = props;
  return (
    <>
      <Heading>
        {t('nav.activity')} <span class="muted">{t('common.in', { place: app })}</span>
      </Heading>
      <AppNav org={org} app={app} current="activity" />
      <Feed org={org} app={app} collection="activities" title={t('activity.activities')} filters={ACTIVITY_FILTERS} columns={activityColumns()} />
      <Feed org={org} app={app} collection="events" title={t('activity.events')} filters={EVENT_FILTERS} columns={eventColumns()} />
    </>
  );
}
