/**
 * What happened in an application (docs/api.md#activities-feeds-and-events): its users'
 * activities, and its events, among them the audit trail of second factors (category
 * `security`, docs/api.md#second-factors), each filtered by a query the form writes
 * (docs/api.md#queries-and-paging); and what the administrators of an organization did (its
 * feed, `GET /management/orgs/{org}/feed`), filtered by the feed's own parameters. Each is read
 * by pages, newest first.
 */
import { dateTime, t } from '../i18n';
import type { MessageKey } from '../messages';
import type { paths } from '~openapi';
import { useState } from 'preact/hooks';
import { entitiesOf, request, type Entity, type Envelope } from '../api';
import { TextField } from '../access/parts';
import { AppNav, OrgNav } from '../app-nav';
import { useLoad } from '../load';
import { Heading, Problem, Table, Waiting, type Column } from '../parts';
import { Pager, usePages } from '../paging';

const PAGE_SIZE = '20';

type OrgFeedQuery = NonNullable<paths['/management/orgs/{orgId}/feed']['get']['parameters']['query']>;

/** A string literal of the query language: in single quotes, `'` and `\` escaped. */
const quoted = (value: string) => `'${value.replace(/[\\']/g, '\\$&')}'`;

interface Filter {
  name: string;
  label: MessageKey;
  /** A time is entered as the browser's local date and time, and read as ms since the epoch (msOf). */
  time?: boolean;
}

/** A filter of a collection, as a condition of its query. */
interface QueryFilter extends Filter {
  condition: (value: string) => string;
}

/** The filled filters, each trimmed; a time in ms since the epoch. */
type Values = Record<string, string>;

const msOf = (local: string) => String(new Date(local).getTime());

function filledOf(filters: readonly Filter[], draft: Values): Values {
  const filled: Values = {};
  for (const filter of filters) {
    const value = (draft[filter.name] ?? '').trim();
    if (value !== '') filled[filter.name] = filter.time ? msOf(value) : value;
  }
  return filled;
}

/** The query of the filled filters, joined by `and`; none filled, no query. */
function queryOf(filters: readonly QueryFilter[], values: Values): string | undefined {
  const conditions = filters.filter((filter) => values[filter.name] !== undefined).map((filter) => filter.condition(values[filter.name]));
  return conditions.length === 0 ? undefined : conditions.join(' and ');
}

/**
 * One feed: a form of filters, what they were made into (`shown`, when the feed says it), a table
 * of a page and the pager. `read` reads the page after `cursor` with the filled filters; `id`
 * names the feed in the page and says when to start over.
 */
function Feed(props: {
  id: string;
  title: string;
  filters: readonly Filter[];
  columns: readonly Column<Entity>[];
  read: (cursor: string | undefined, values: Values) => Promise<Envelope>;
  shown?: (values: Values) => string | undefined;
}) {
  const { id } = props;
  const [draft, setDraft] = useState<Values>({});
  const [values, setValues] = useState<Values>({});
  const pages = usePages((cursor) => props.read(cursor, values), [id, values]);
  const entities = pages.value ? entitiesOf(pages.value) : [];
  const titleId = `${id}-title`;
  const filtered = Object.keys(values).length > 0;
  const shown = props.shown?.(values);
  const filter = (event: Event) => {
    event.preventDefault();
    setValues(filledOf(props.filters, draft));
    // Another filter, another list: from its first page.
    pages.first();
  };
  return (
    <section class="panel" aria-labelledby={titleId}>
      <h2 id={titleId}>{props.title}</h2>
      <form class="filters" onSubmit={filter} aria-label={t('activity.filter_named', { title: props.title })}>
        {props.filters.map((field) =>
          field.time ? (
            <div class="field" key={field.name}>
              <label for={`${id}-${field.name}`}>{t(field.label)}</label>
              <input
                id={`${id}-${field.name}`}
                type="datetime-local"
                value={draft[field.name] ?? ''}
                onInput={(event) => setDraft({ ...draft, [field.name]: event.currentTarget.value })}
              />
            </div>
          ) : (
            <TextField
              key={field.name}
              id={`${id}-${field.name}`}
              label={t(field.label)}
              value={draft[field.name] ?? ''}
              onInput={(value) => setDraft({ ...draft, [field.name]: value })}
              optional
            />
          ),
        )}
        <button type="submit">{t('activity.filter')}</button>
      </form>
      {shown !== undefined && (
        <p class="muted">
          {t('activity.query')} <code class="mono">{shown}</code>
        </p>
      )}
      <Waiting loading={pages.loading} />
      <Problem error={pages.error} />
      {pages.value && entities.length === 0 && <p>{filtered ? t('activity.nothing_matches') : t('activity.nothing_yet')}</p>}
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

/** The feed of a collection (activities, events), filtered by the query its filters make. */
function CollectionFeed(props: {
  org: string;
  app: string;
  collection: string;
  title: string;
  filters: readonly QueryFilter[];
  columns: readonly Column<Entity>[];
}) {
  const { org, app, collection, filters } = props;
  return (
    <Feed
      id={collection}
      title={props.title}
      filters={filters}
      columns={props.columns}
      read={(cursor, values) =>
        request('get', '/{orgId}/{appId}/{collection}', {
          params: { orgId: org, appId: app, collection },
          query: { ql: queryOf(filters, values), cursor, limit: PAGE_SIZE },
        })
      }
      shown={(values) => queryOf(filters, values)}
    />
  );
}

const SINCE: Filter = { name: 'since', label: 'activity.since', time: true };
const since = (property: string): QueryFilter => ({ ...SINCE, condition: (ms) => `${property} >= ${ms}` });
const text = (value: unknown) => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
const when = (ms: unknown) => (typeof ms === 'number' ? dateTime(ms) : '');

const ACTIVITY_FILTERS: readonly QueryFilter[] = [
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

const EVENT_FILTERS: readonly QueryFilter[] = [
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
      <CollectionFeed org={org} app={app} collection="activities" title={t('activity.activities')} filters={ACTIVITY_FILTERS} columns={activityColumns()} />
      <CollectionFeed org={org} app={app} collection="events" title={t('activity.events')} filters={EVENT_FILTERS} columns={eventColumns()} />
    </>
  );
}

const ORG_FEED_FILTERS: readonly Filter[] = [
  { name: 'category', label: 'org_feed.category_hint' },
  { name: 'verb', label: 'org_feed.verb_hint' },
  { name: 'actor', label: 'org_feed.actor_hint' },
  SINCE,
];

/** The organization's feed: who did what (an admin by username when they still administer it, else by uuid). */
function OrgFeed(props: { org: string }) {
  const { org } = props;
  const admins = useLoad(async () => entitiesOf(await request('get', '/management/orgs/{orgId}/users', { params: { orgId: org } })), [org]);
  const usernames = new Map((admins.value ?? []).map((admin) => [admin.uuid, String(admin.username)]));
  const actorOf = (activity: Entity) => {
    const uuid = (activity.actor as { objectUuid?: string } | null)?.objectUuid;
    return uuid === undefined ? '' : (usernames.get(uuid) ?? uuid);
  };
  const columns: Column<Entity>[] = [
    { label: t('activity.when'), value: (activity) => when(activity.published) },
    { label: t('activity.actor'), value: actorOf },
    { label: t('activity.category'), value: (activity) => text(activity.category) },
    { label: t('activity.verb'), value: (activity) => text(activity.verb) },
    { label: t('activity.what'), value: (activity) => text(activity.title) },
  ];
  return (
    <Feed
      id="org-feed"
      title={t('org_feed.title')}
      filters={ORG_FEED_FILTERS}
      columns={columns}
      read={(cursor, { category, verb, actor, since: from }) =>
        request('get', '/management/orgs/{orgId}/feed', {
          params: { orgId: org },
          // A category the API does not have is its refusal to show, as any other.
          query: {
            category: category as OrgFeedQuery['category'],
            verb,
            actor,
            since: from === undefined ? undefined : Number(from),
            cursor,
            limit: Number(PAGE_SIZE),
          },
        })
      }
    />
  );
}

export function OrgActivity(props: { org: string }) {
  return (
    <>
      <Heading>
        {t('nav.activity')} <span class="muted">{t('common.in', { place: props.org })}</span>
      </Heading>
      <OrgNav org={props.org} current="activity" />
      <OrgFeed org={props.org} />
    </>
  );
}
