/** The client credentials of an application and of an organization (docs/api.md#clients), each on its own screen. */
import { request } from '../api';
import { AppNav, OrgNav } from '../app-nav';
import { CredentialsPanel } from '../credentials-panel';
import { Heading } from '../parts';

export function Credentials(props: { org: string; app: string }) {
  const { org, app } = props;
  const params = { orgId: org, appId: app };
  return (
    <>
      <Heading>
        Credentials <span class="muted">of {app}</span>
      </Heading>
      <AppNav org={org} app={app} current="credentials" />
      <p>
        The application's own client: <code class="mono">grant_type=client_credentials</code> at <code class="mono">/connect/token</code> with this pair gives a
        token with full control of the application's data.
      </p>
      <CredentialsPanel
        read={() => request('get', '/management/orgs/{orgId}/apps/{appId}/credentials', { params })}
        rotate={() => request('post', '/management/orgs/{orgId}/apps/{appId}/credentials', { params })}
        keys={[org, app]}
      />
    </>
  );
}

export function OrgCredentials(props: { org: string }) {
  const params = { orgId: props.org };
  return (
    <>
      <Heading>
        Credentials <span class="muted">of {props.org}</span>
      </Heading>
      <OrgNav org={props.org} current="credentials" />
      <p>
        The organization's own client: <code class="mono">grant_type=client_credentials</code> at <code class="mono">/connect/token</code> with this pair gives
        a token that acts as an administrator of the organization and every one of its applications.
      </p>
      <CredentialsPanel
        read={() => request('get', '/management/orgs/{orgId}/credentials', { params })}
        rotate={() => request('post', '/management/orgs/{orgId}/credentials', { params })}
        keys={[props.org]}
      />
    </>
  );
}
