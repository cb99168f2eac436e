/**
 * The list of an application's users, groups, roles or devices, a page at a time, with a form that creates
 * one (docs/api.md#entities) where the screen has one: what those screens share.
 */
import { t } from '../i18n';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { entitiesOf, request, type Entity } from '../api';
import { Heading, Problem, Table, useAction, Waiting, type Column as PartsColumn } from '../parts';
import { Pager, usePages } from '../paging';
import { Link, pathOf } from '../router';
import { AppNav } from '../app-nav';
import { type AccessCollection } from './sections';

const PAGE_SIZE = '20';

export interface Column extends PartsColumn<Entity> {
  value: (entity: Entity) => string;
}

export interface Field {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password';
  required?: boolean;
  autocomplete?: string;
}

export interface ListProps {
  org: string;
  app: string;
  collection: AccessCollection | 'devices';
  title: string;
  /** The first column links to the entity's screen. */
  columns: readonly Column[];
  /** The form's fields, sent as the new entity's properties (empty ones are left out); none, no form. */
  fields: readonly Field[];
  children?: ComponentChildren;
}

/** The form that creates one: its fields sent as the new entity's properties, the empty ones left out. */
function CreateForm(props: ListProps & { onCreated: () => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const create = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void create.run(async () => {
      const body = Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ''));
      await request('post', '/{orgId}/{appId}/{collection}', { params: { orgId: props.org, appId: props.app, collection: props.collection }, body });
      setValues({});
      props.onCreated();
    });
  };
  return (
    <form class="panel" onSubmit={submit}>
      <h2>{t(`access.${props.collection}.new` as const)}</h2>
      {props.fields.map((field) => (
        <div class="field" key={field.name}>
          <label for={`new-${field.name}`}>{field.label}</label>
          <input
            id={`new-${field.name}`}
            // Preact types `type` per kind of input; these three kinds take the same attributes.
            type={(field.type ?? 'text') as 'text'}
            required={field.required}
            value={values[field.name] ?? ''}
            autocomplete={field.autocomplete ?? 'off'}
            onInput={(event) => setValues({ ...values, [field.name]: event.currentTarget.value })}
          />
        </div>
      ))}
      <Problem error={create.error} />
      <button type="submit" disabled={create.busy}>
        {t(`access.${props.collection}.create` as const)}
      </button>
    </form>
  );
}

export function AccessList(props: ListProps) {
  const { org, app, collection } = props;
  const pages = usePages(
    (cursor) => request('get', '/{orgId}/{appId}/{collection}', { params: { orgId: org, appId: app, collection }, query: { cursor, limit: PAGE_SIZE } }),
    [org, app, collection],
  );
  const entities = pages.value ? entitiesOf(pages.value) : [];
  const [first, ...rest] = props.columns;
  return (
    <>
      <Heading>
        {props.title} <span class="muted">{t('common.in', { place: app })}</span>
      </Heading>
      <AppNav org={org} app={app} current={collection} />
      <Waiting loading={pages.loading} />
      <Problem error={pages.error} />
      {pages.value && entities.length === 0 && <p>{t(`access.${collection}.none` as const)}</p>}
      {entities.length > 0 && (
        <Table
          caption={props.title}
          hiddenCaption
          columns={[
            { ...first, value: (entity: Entity) => <Link to={pathOf('orgs', org, 'apps', app, collection, entity.uuid)}>{first.value(entity)}</Link> },
            ...rest,
          ]}
          rows={entities}
          keyOf={(entity) => entity.uuid}
        />
      )}
      <Pager pages={pages} />
      {props.fields.length > 0 && <CreateForm {...props} onCreated={pages.first} />}
      {props.children}
    </>
  );
}
