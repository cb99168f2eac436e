/**
 * A user's signed-in browsers and the applications they allowed (docs/api.md#sessions-and-consents),
 * as the account page shows them to the user themself: "End" signs that browser out at once,
 * "Revoke" forgets the consent and the client's tokens of the user. An app user's are below the
 * application (`/{org}/{app}/users/{user}/…`), an admin user's below the management API
 * (`/management/users/{user}/…`): the signed-in admin's own, on their account screen.
 */
import { dateTime, t } from '../i18n';
import { ActionTable } from '../action-table';
import { entitiesOf, request, type Envelope } from '../api';
import { useLoad } from '../load';
import { Problem, useAction, Waiting } from '../parts';

interface Session {
  id: string;
  user_agent: string | null;
  address: string | null;
  created: number;
  last_seen: number;
}

interface Consent {
  client_id: string;
  client_name: string;
  scope: string;
  modified: number;
}

/** Whose sign-ins: an app user of an application, or an admin user. */
export type SignInOwner = { org: string; app: string; userId: string } | { adminUserId: string };

interface SignInCalls {
  sessions: () => Promise<Envelope>;
  endSession: (sessionId: string) => Promise<Envelope>;
  consents: () => Promise<Envelope>;
  revokeConsent: (clientId: string) => Promise<Envelope>;
}

function callsOf(owner: SignInOwner): SignInCalls {
  if ('adminUserId' in owner) {
    const params = { userId: owner.adminUserId };
    return {
      sessions: () => request('get', '/management/users/{userId}/sessions', { params }),
      endSession: (sessionId) => request('delete', '/management/users/{userId}/sessions/{sessionId}', { params: { ...params, sessionId } }),
      consents: () => request('get', '/management/users/{userId}/consents', { params }),
      revokeConsent: (clientId) => request('delete', '/management/users/{userId}/consents/{clientId}', { params: { ...params, clientId } }),
    };
  }
  const params = { orgId: owner.org, appId: owner.app, entityId: owner.userId };
  return {
    sessions: () => request('get', '/{orgId}/{appId}/users/{entityId}/sessions', { params }),
    endSession: (sessionId) => request('delete', '/{orgId}/{appId}/users/{entityId}/sessions/{sessionId}', { params: { ...params, sessionId } }),
    consents: () => request('get', '/{orgId}/{appId}/users/{entityId}/consents', { params }),
    revokeConsent: (clientId) => request('delete', '/{orgId}/{appId}/users/{entityId}/consents/{clientId}', { params: { ...params, clientId } }),
  };
}

interface Props {
  owner: SignInOwner;
  /** The signed-in admin's own: the texts say "you". */
  self?: boolean;
}

const ownerKey = (owner: SignInOwner) => ('adminUserId' in owner ? owner.adminUserId : `${owner.org}/${owner.app}/${owner.userId}`);

export function SessionsPanel(props: Props) {
  const calls = callsOf(props.owner);
  const sessions = useLoad(async () => entitiesOf(await calls.sessions()) as unknown as Session[], [ownerKey(props.owner)]);
  const end = useAction();
  const endSession = (session: Session) =>
    void end.run(async () => {
      await calls.endSession(session.id);
      sessions.reload();
    });
  return (
    <section class="panel" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('sessions.title')}</h2>
      <Waiting loading={sessions.loading && sessions.value === undefined} />
      <Problem error={sessions.error ?? end.error} />
      {sessions.value?.length === 0 && <p>{t(props.self ? 'sessions.none_self' : 'sessions.none')}</p>}
      {sessions.value !== undefined && sessions.value.length > 0 && (
        <ActionTable
          caption={t('sessions.title')}
          columns={[
            { label: t('sessions.browser'), cell: (session) => session.user_agent ?? t('sessions.unknown') },
            { label: t('sessions.address'), cell: (session) => session.address ?? t('sessions.unknown') },
            { label: t('sessions.signed_in'), cell: (session) => dateTime(session.created), wideOnly: true },
            { label: t('sessions.last_active'), cell: (session) => dateTime(session.last_seen) },
          ]}
          rows={sessions.value}
          keyOf={(session) => session.id}
          actions={[
            {
              label: t('sessions.end'),
              name: (session) => t('sessions.end_name', { browser: session.user_agent ?? t('sessions.unknown_browser'), when: dateTime(session.last_seen) }),
              danger: true,
              onClick: endSession,
            },
          ]}
          busy={end.busy}
        />
      )}
    </section>
  );
}

export function ConsentsPanel(props: Props) {
  const calls = callsOf(props.owner);
  const consents = useLoad(async () => entitiesOf(await calls.consents()) as unknown as Consent[], [ownerKey(props.owner)]);
  const revoke = useAction();
  const revokeConsent = (consent: Consent) =>
    void revoke.run(async () => {
      await calls.revokeConsent(consent.client_id);
      consents.reload();
    });
  return (
    <section class="panel" aria-labelledby="consents-title">
      <h2 id="consents-title">{t('consents.title')}</h2>
      <Waiting loading={consents.loading && consents.value === undefined} />
      <Problem error={consents.error ?? revoke.error} />
      {consents.value?.length === 0 && <p>{t(props.self ? 'consents.none_self' : 'consents.none')}</p>}
      {consents.value !== undefined && consents.value.length > 0 && (
        <ActionTable
          caption={t('consents.title')}
          columns={[
            { label: t('consents.application'), cell: (consent) => consent.client_name },
            { label: t('consents.scopes'), cell: (consent) => consent.scope, mono: true },
            { label: t('consents.allowed'), cell: (consent) => dateTime(consent.modified), wideOnly: true },
          ]}
          rows={consents.value}
          keyOf={(consent) => consent.client_id}
          actions={[{ label: t('consents.revoke'), name: (consent) => consent.client_name, danger: true, onClick: revokeConsent }]}
          busy={revoke.busy}
        />
      )}
    </section>
  );
}
