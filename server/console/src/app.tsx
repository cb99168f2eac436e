/**
 * The console: signs in (or finishes a sign-in that comes back to /console/callback), finds the
 * admin, and shows the screen the path names, below a bar with where you are and a sign-out.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LOCALE_NAMES, LOCALES, locale, setLocale, t, useLocale, type Locale } from './i18n';
import type { MessageKey } from './messages';
import { completeSignIn, isSignedIn, signIn, signOut } from './auth';
import { Heading, Problem, Waiting } from './parts';
import { Link, navigate, pathOf, segmentsOf, usePath } from './router';
import { findAdmin, type Admin } from './session';
import { ACCESS_SECTIONS, type AccessCollection } from './access/sections';
import { AccessEntityScreen, AccessListScreen } from './screens/access';
import { Asset } from './asset';
import { Connections } from './connections';
import { Applications } from './screens/applications';
import { OAuthClientScreen } from './screens/client';
import { OAuthClients } from './screens/clients';
import { Collections } from './screens/collections';
import { Credentials, OrgCredentials } from './screens/credentials';
import { Activity, OrgActivity } from './screens/activity';
import { DeviceScreen, Devices } from './screens/devices';
import { Push } from './screens/push';
import { Entities } from './screens/entities';
import { EntityScreen } from './screens/entity';
import { IdentityProviders } from './screens/identity-providers';
import { NoAccess } from './screens/no-access';
import { OrgAdmins } from './screens/org-admins';
import { Organizations } from './screens/organizations';
import { ServerStatus } from './screens/server';
import { AppSettings, OrgSettings } from './screens/settings';
import { MyAccount } from './screens/account';

function Screen(props: { segments: string[]; admin: Admin }) {
  const [orgs, org, apps, app, collections, collection, id] = props.segments;
  if (orgs === undefined) {
    return Object.keys(props.admin.organizations).length === 0 && !props.admin.sysadmin ? (
      <NoAccess admin={props.admin} />
    ) : (
      <Organizations admin={props.admin} />
    );
  }
  if (orgs === 'server' && org === undefined) return <ServerStatus admin={props.admin} />;
  if (orgs === 'account' && org === undefined) return <MyAccount admin={props.admin} />;
  if (orgs === 'orgs' && org !== undefined && apps === undefined) return <Applications org={org} />;
  if (orgs === 'orgs' && apps === 'admins' && app === undefined) return <OrgAdmins org={org} />;
  if (orgs === 'orgs' && apps === 'credentials' && app === undefined) return <OrgCredentials org={org} />;
  if (orgs === 'orgs' && apps === 'activity' && app === undefined) return <OrgActivity org={org} />;
  if (orgs === 'orgs' && apps === 'settings' && app === undefined) return <OrgSettings org={org} />;
  if (apps === 'apps' && app !== undefined && collections === undefined) return <Collections org={org} app={app} />;
  if (collections === 'clients' && collection === undefined) return <OAuthClients org={org} app={app} />;
  if (collections === 'clients' && collection !== undefined && id === undefined) return <OAuthClientScreen org={org} app={app} clientId={collection} />;
  if (collections === 'credentials' && collection === undefined) return <Credentials org={org} app={app} />;
  if (collections === 'identity-providers' && collection === undefined) return <IdentityProviders org={org} app={app} />;
  if (collections === 'devices' && collection === undefined) return <Devices org={org} app={app} />;
  if (collections === 'devices' && id === undefined) return <DeviceScreen org={org} app={app} id={collection} />;
  if (collections === 'push' && collection === undefined) return <Push org={org} app={app} />;
  if (collections === 'activity' && collection === undefined) return <Activity org={org} app={app} />;
  if (collections === 'settings' && collection === undefined) return <AppSettings org={org} app={app} />;
  if (apps === 'apps' && ACCESS_SECTIONS.includes(collections as AccessCollection) && props.segments.length <= 6) {
    const section = collections as AccessCollection;
    return collection === undefined ? (
      <AccessListScreen org={org} app={app} collection={section} />
    ) : (
      <AccessEntityScreen org={org} app={app} collection={section} id={collection} />
    );
  }
  if (collections === 'collections' && collection !== undefined && id === undefined)
    return <Entities key={collection} org={org} app={app} collection={collection} />;
  if (collections === 'collections' && id !== undefined && props.segments.length === 7)
    return (
      <EntityScreen org={org} app={app} collection={collection} id={id}>
        {(entity, reload) => (
          <>
            <Asset org={org} app={app} collection={collection} entity={entity} reload={reload} />
            <Connections org={org} app={app} collection={collection} entity={entity} reload={reload} />
          </>
        )}
      </EntityScreen>
    );
  return (
    <>
      <Heading>{t('not_found.title')}</Heading>
      <p>
        {t('not_found.text')} <Link to="/">{t('not_found.link')}</Link>
      </p>
    </>
  );
}

const AREA_LABELS: Record<string, MessageKey> = {
  users: 'nav.users',
  groups: 'nav.groups',
  roles: 'nav.roles',
  clients: 'nav.clients',
  'identity-providers': 'nav.identity_providers',
  credentials: 'nav.credentials',
  admins: 'nav.admins',
  devices: 'nav.devices',
  push: 'nav.push',
  activity: 'nav.activity',
  settings: 'nav.settings',
};

/** Where you are: each level a link to its screen. */
function Breadcrumbs(props: { segments: string[] }) {
  const [top, org, orgArea, app, area, item, id] = props.segments;
  const trail: [string, string][] = [[t('orgs.title'), '/']];
  if (top === 'server') trail.push([t('bar.server'), '/server']);
  if (top === 'account') trail.push([t('account.title'), '/account']);
  if (org) trail.push([org, pathOf('orgs', org)]);
  // The organization's own areas (its admins, its credentials); `apps` leads on to an application.
  if (orgArea && orgArea !== 'apps') trail.push([orgArea in AREA_LABELS ? t(AREA_LABELS[orgArea]) : orgArea, pathOf('orgs', org, orgArea)]);
  if (app) trail.push([app, pathOf('orgs', org, 'apps', app)]);
  // An application's collections are its own screen; its other areas have one of their own.
  if (area && area !== 'collections') trail.push([area in AREA_LABELS ? t(AREA_LABELS[area]) : area, pathOf('orgs', org, 'apps', app, area)]);
  if (item) trail.push([item, pathOf('orgs', org, 'apps', app, area, item)]);
  if (id) trail.push([id, pathOf('orgs', org, 'apps', app, area, item, id)]);
  return (
    <nav aria-label={t('bar.breadcrumb')} class="crumbs">
      <ol>
        {trail.map(([label, to], index) => (
          <li key={to}>{index === trail.length - 1 ? <span aria-current="page">{label}</span> : <Link to={to}>{label}</Link>}</li>
        ))}
      </ol>
    </nav>
  );
}

function Shell(props: { admin?: Admin; segments?: string[]; children: ComponentChildren }) {
  return (
    <>
      <a class="skip" href="#main">
        {t('bar.skip')}
      </a>
      <header class="bar">
        <Link to="/" class="brand">
          idp console
        </Link>
        {props.segments && props.segments.length > 0 && <Breadcrumbs segments={props.segments} />}
        <div class="who">
          {props.admin && <Link to="/server">{t('bar.server')}</Link>}
          {props.admin && (
            <Link to="/account">
              {props.admin.username}
              <span class="visually-hidden"> ({t('account.title')})</span>
            </Link>
          )}
          <LocaleSwitcher />
          {props.admin && (
            <button type="button" onClick={() => void signOut()}>
              {t('bar.sign_out')}
            </button>
          )}
        </div>
      </header>
      <main id="main">{props.children}</main>
    </>
  );
}

function SignedOut() {
  return (
    <Shell>
      <Heading>{t('signed_out.title')}</Heading>
      <p>{t('signed_out.text')}</p>
      <button type="button" onClick={() => void signIn('/')}>
        {t('signed_out.sign_in')}
      </button>
    </Shell>
  );
}

/** The language of the console, kept for the next visit. */
function LocaleSwitcher() {
  return (
    <>
      <label for="locale" class="visually-hidden">
        {t('bar.language')}
      </label>
      <select id="locale" value={locale()} onChange={(event) => setLocale(event.currentTarget.value as Locale)}>
        {LOCALES.map((code) => (
          <option key={code} value={code} lang={code}>
            {LOCALE_NAMES[code]}
          </option>
        ))}
      </select>
    </>
  );
}

export function App() {
  // Every text is read again in the language chosen.
  useLocale();
  const path = usePath();
  const [admin, setAdmin] = useState<Admin>();
  const [error, setError] = useState<Error>();
  const signedOut = path === '/signed-out';
  useEffect(() => {
    if (signedOut || admin !== undefined) return;
    const start = async () => {
      if (path === '/callback') navigate(await completeSignIn(new URL(location.href)), true);
      else if (!isSignedIn()) return signIn(location.pathname.slice('/console'.length) + location.search || '/');
      setAdmin(await findAdmin());
    };
    start().catch((failure: unknown) => setError(failure instanceof Error ? failure : new Error(String(failure))));
  }, [signedOut]);

  if (signedOut) return <SignedOut />;
  if (error) {
    return (
      <Shell>
        <Heading>{t('sign_in_failed.title')}</Heading>
        <Problem error={error} />
        <button type="button" onClick={() => void signIn('/')}>
          {t('sign_in_failed.again')}
        </button>
      </Shell>
    );
  }
  if (admin === undefined) {
    return (
      <Shell>
        <Waiting loading />
      </Shell>
    );
  }
  const segments = segmentsOf(path);
  return (
    <Shell admin={admin} segments={segments}>
      <Screen key={path} segments={segments} admin={admin} />
    </Shell>
  );
}
