/**
 * An application's devices (docs/api.md#push-notifications): a list by pages, and one device
 * with its properties (its push tokens are `{notifier}.notifier.id`), the users it belongs to,
 * a test notification to it, and its deletion after a confirmation.
 */
import { dateTime, t } from '../i18n';
import { entitiesOf, request, type Entity } from '../api';
import { AccessList } from '../access/list';
import { AppNav } from '../app-nav';
import { useLoad } from '../load';
import { Problem, Waiting } from '../parts';
import { SendForm, useNotifiers } from '../push/send';
import { Link, pathOf } from '../router';
import { EntityScreen } from './entity';

/** The notifiers a device has a push token for, from its `{notifier}.notifier.id` properties. */
function notifiersOf(device: Entity): string {
  return Object.keys(device)
    .filter((key) => key.endsWith('.notifier.id'))
    .map((key) => key.slice(0, -'.notifier.id'.length))
    .join(', ');
}

export function Devices(props: { org: string; app: string }) {
  return (
    <AccessList
      org={props.org}
      app={props.app}
      collection="devices"
      title={t('nav.devices')}
      columns={[
        { label: t('devices.name'), value: (device) => String(device.name ?? device.uuid) },
        { label: t('devices.tokens_for'), value: notifiersOf },
        { label: t('devices.created'), value: (device) => dateTime(device.created), wideOnly: true },
      ]}
      fields={[]}
    />
  );
}

/** The users a device belongs to: they connect to it as `/users/{user}/devices/{device}`. */
function DeviceUsers(props: { org: string; app: string; device: string }) {
  const { org, app, device } = props;
  const users = useLoad(
    async () =>
      entitiesOf(
        await request('get', '/{orgId}/{appId}/{collection}/{entityId}/connecting/{relation}', {
          params: { orgId: org, appId: app, collection: 'devices', entityId: device, relation: 'devices' },
        }),
      ),
    [org, app, device],
  );
  return (
    <section class="panel" aria-labelledby="device-users-title">
      <h2 id="device-users-title">{t('nav.users')}</h2>
      <Waiting loading={users.loading && users.value === undefined} />
      <Problem error={users.error} />
      {users.value?.length === 0 && <p>{t('devices.no_user')}</p>}
      <ul class="rules">
        {users.value?.map((user) => (
          <li key={user.uuid}>
            <Link to={pathOf('orgs', org, 'apps', app, 'users', user.uuid)}>{String(user.username ?? user.name ?? user.uuid)}</Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SendToDevice(props: { org: string; app: string; device: string }) {
  const notifiers = useNotifiers(props.org, props.app);
  return <SendForm org={props.org} app={props.app} notifiers={notifiers.value} target={{ kind: 'device', id: props.device }} />;
}

export function DeviceScreen(props: { org: string; app: string; id: string }) {
  const { org, app, id } = props;
  return (
    <>
      <AppNav org={org} app={app} current="devices" />
      <EntityScreen org={org} app={app} collection="devices" id={id} back={pathOf('orgs', org, 'apps', app, 'devices')}>
        {(device) => (
          <>
            <DeviceUsers org={org} app={app} device={device.uuid} />
            <SendToDevice org={org} app={app} device={device.uuid} />
          </>
        )}
      </EntityScreen>
    </>
  );
}
