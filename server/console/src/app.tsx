/**
 * The console: signs in (or finishes a sign-in that comes back to /console/callback), finds the
 * admin, and shows the screen the path names, below a bar with where you are and a sign-out.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { completeSignIn, isSignedIn, signIn, signOut } from './auth';
import { Heading, Problem, Waiting } from './parts';
import { Link, navigate, pathOf, segmentsOf, usePath } from './router';
import { findAdmin, type Admin } from './session';
import { ACCESS_SECTIONS, type AccessCollection } from './access/sections';
import { AccessEntityScreen, AccessListScreen } from './screens/access';
import { Applications } from './screens/applications';
import { Collections } from './screens/collections';
import { Entities } from './screens/entities';
import { EntityScreen } from './screens/entity';
import { NoAccess } from './screens/no-access';
import { Organizations } from './screens/organizations';

function Screen(props: { segments: string[]; admin: Admin }) {
  const [orgs, org, apps, app, collections, collection, id] = props.segments;
  if (orgs === undefined) {
    return Object.keys(props.admin.organizations).length === 0 ? <NoAccess admin={props.admin} /> : <Organizations admin={props.admin} />;
  }
  if (orgs === 'orgs' && org !== undefined && apps === undefined) return <Applications org={org} />;
  if (apps === 'apps' && app !== undefined && collections === undefined) return <Collections org={org} app={app} />;
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
    return <EntityScreen org={org} app={app} collection={collection} id={id} />;
  return (
    <>
      <Heading>Not found</Heading>
      <p>
        The console has no page at this address. <Link to="/">Go to your organizations.</Link>
      </p>
    </>
  );
}

/** Where you are: each level a link to its screen. */
function Breadcrumbs(props: { segments: string[] }) {
  const [, org, , app, section, collection, id] = props.segments;
  const trail: [string, string][] = [['Organizations', '/']];
  if (org) trail.push([org, pathOf('orgs', org)]);
  if (app) trail.push([app, pathOf('orgs', org, 'apps', app)]);
  // Users, groups and roles have a list of their own; a collection's list is its own crumb.
  if (section && section !== 'collections') trail.push([section, pathOf('orgs', org, 'apps', app, section)]);
  if (collection) trail.push([collection, pathOf('orgs', org, 'apps', app, section, collection)]);
  if (id) trail.push([id, pathOf('orgs', org, 'apps', app, section, collection, id)]);
  return (
    <nav aria-label="Breadcrumb" class="crumbs">
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
        Skip to content
      </a>
      <header class="bar">
        <Link to="/" class="brand">
          idp console
        </Link>
        {props.segments && props.segments.length > 0 && <Breadcrumbs segments={props.segments} />}
        {props.admin && (
          <div class="who">
            <span class="muted">{props.admin.username}</span>
            <button type="button" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main">{props.children}</main>
    </>
  );
}

function SignedOut() {
  return (
    <Shell>
      <Heading>Signed out</Heading>
      <p>You have signed out of the console.</p>
      <button type="button" onClick={() => void signIn('/')}>
        Sign in
      </button>
    </Shell>
  );
}

export function App() {
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
        <Heading>Sign-in failed</Heading>
        <Problem error={error} />
        <button type="button" onClick={() => void signIn('/')}>
          Sign in again
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
