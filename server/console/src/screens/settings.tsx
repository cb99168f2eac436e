/**
 * The settings of an organization (`PUT /management/orgs/{org}`) and of an application
 * (`PUT /management/orgs/{org}/apps/{app}`) that are on or off (docs/account.md#second-factor-required,
 * docs/api.md#dynamic-client-registration).
 */
import type { ComponentChildren } from 'preact';
import { t } from '../i18n';
import { entitiesOf, request, type Envelope } from '../api';
import { AppNav, OrgNav } from '../app-nav';
import { useLoad } from '../load';
import { Heading, Problem, Waiting } from '../parts';
import { SettingsPanel, type Setting } from '../settings';

const ORG_SETTINGS: readonly Setting[] = [{ name: 'secondFactorRequired', label: 'settings.org_second_factor', hint: 'settings.org_second_factor_hint' }];

const APP_SETTINGS: readonly Setting[] = [
  { name: 'secondFactorRequired', label: 'settings.app_second_factor', hint: 'settings.app_second_factor_hint' },
  { name: 'openClientRegistration', label: 'settings.open_registration', hint: 'settings.open_registration_hint' },
];

const first = async (answer: Promise<Envelope>) => entitiesOf(await answer)[0] as Record<string, unknown>;

/** One owner's settings screen: `read` answers the owner, `write` stores one setting and answers the owner after it. */
function SettingsScreen(props: {
  place: string;
  nav: ComponentChildren;
  title: string;
  settings: readonly Setting[];
  read: () => Promise<Envelope>;
  write: (body: Record<string, boolean>) => Promise<Envelope>;
}) {
  const owner = useLoad(() => first(props.read()), [props.place]);
  return (
    <>
      <Heading>
        {t('nav.settings')} <span class="muted">{t('common.of', { place: props.place })}</span>
      </Heading>
      {props.nav}
      <Waiting loading={owner.loading && owner.value === undefined} />
      <Problem error={owner.error} />
      {owner.value && (
        <SettingsPanel title={props.title} settings={props.settings} stored={owner.value} save={(name, on) => first(props.write({ [name]: on }))} />
      )}
    </>
  );
}

export function OrgSettings(props: { org: string }) {
  const params = { orgId: props.org };
  return (
    <SettingsScreen
      place={props.org}
      nav={<OrgNav org={props.org} current="settings" />}
      title={t('settings.org_title')}
      settings={ORG_SETTINGS}
      read={() => request('get', '/management/orgs/{orgId}', { params })}
      write={(body) => request('put', '/management/orgs/{orgId}', { params, body })}
    />
  );
}

export function AppSettings(props: { org: string; app: string }) {
  const params = { orgId: props.org, appId: props.app };
  return (
    <SettingsScreen
      place={props.app}
      nav={<AppNav org={props.org} app={props.app} current="settings" />}
      title={t('settings.app_title')}
      settings={APP_SETTINGS}
      read={() => request('get', '/management/orgs/{orgId}/apps/{appId}', { params })}
      write={(body) => request('put', '/management/orgs/{orgId}/apps/{appId}', { params, body })}
    />
  );
}
