/**
 * A test notification (docs/api.md#push-notifications): a text through one notifier to a user's
 * devices, one device, a group's members' devices or every device; then its state as it goes.
 */
import { t } from '../i18n';
import type { MessageKey } from '../messages';
import { useState } from 'preact/hooks';
import { entitiesOf, request, type Entity } from '../api';
import { TextField } from '../access/parts';
import { useLoad } from '../load';
import { Problem, useAction } from '../parts';
import { NotificationState } from './state';

export type TargetKind = 'user' | 'device' | 'group' | 'all';
export interface Target {
  kind: TargetKind;
  /** A username, device, group path or uuid; none for every device. */
  id?: string;
}

const KINDS: Record<TargetKind, MessageKey> = { user: 'send.to_user', device: 'send.to_device', group: 'send.to_group', all: 'send.to_all' };

function send(org: string, app: string, target: Target, body: { payloads: Record<string, string> }) {
  const orgId = org;
  const appId = app;
  const id = target.id ?? '';
  switch (target.kind) {
    case 'user':
      return request('post', '/{orgId}/{appId}/users/{userId}/notifications', { params: { orgId, appId, userId: id }, body });
    case 'group':
      return request('post', '/{orgId}/{appId}/groups/{groupId}/notifications', { params: { orgId, appId, groupId: id }, body });
    case 'device':
    case 'all':
      return request('post', '/{orgId}/{appId}/devices/{deviceId}/notifications', {
        params: { orgId, appId, deviceId: target.kind === 'all' ? '*' : id },
        body,
      });
  }
}

export function useNotifiers(org: string, app: string) {
  return useLoad(
    async () => entitiesOf(await request('get', '/{orgId}/{appId}/notifiers', { params: { orgId: org, appId: app }, query: { limit: '100' } })),
    [org, app],
  );
}

/** The form; `target` fixes where it goes (a device's own screen), otherwise the form asks. */
/** `onChange` is told of the notification sent, and of each state it goes through. */
export function SendForm(props: { org: string; app: string; target?: Target; notifiers?: Entity[]; onChange?: () => void }) {
  const { org, app } = props;
  const notifiers = props.notifiers ?? [];
  const [kind, setKind] = useState<TargetKind>(props.target?.kind ?? 'user');
  const [targetId, setTargetId] = useState('');
  const [notifier, setNotifier] = useState('');
  const [text, setText] = useState('');
  const [sent, setSent] = useState<string>();
  const action = useAction();
  const chosen = notifier || String(notifiers[0]?.name ?? '');
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const target = props.target ?? { kind, id: targetId.trim() };
      const [notification] = entitiesOf(await send(org, app, target, { payloads: { [chosen]: text } }));
      setSent(notification.uuid);
    });
  };
  return (
    <>
      <form class="panel" onSubmit={submit} aria-labelledby="send-title">
        <h2 id="send-title">{t('send.title')}</h2>
        {notifiers.length === 0 && <p>{t('send.no_notifier')}</p>}
        {props.target === undefined && (
          <>
            <div class="field">
              <label for="send-kind">{t('send.to')}</label>
              <select id="send-kind" value={kind} onChange={(event) => setKind(event.currentTarget.value as TargetKind)}>
                {Object.entries(KINDS).map(([value, label]) => (
                  <option key={value} value={value}>
                    {t(label)}
                  </option>
                ))}
              </select>
            </div>
            {kind !== 'all' && (
              <TextField
                id="send-target"
                label={kind === 'user' ? t('send.user_id') : kind === 'group' ? t('send.group_id') : t('send.device_id')}
                value={targetId}
                onInput={setTargetId}
              />
            )}
          </>
        )}
        <div class="field">
          <label for="send-notifier">{t('send.notifier')}</label>
          <select id="send-notifier" value={chosen} required onChange={(event) => setNotifier(event.currentTarget.value)}>
            {notifiers.map((entity) => (
              <option key={entity.uuid} value={String(entity.name)}>
                {String(entity.name)} ({String(entity.provider)}, {String(entity.environment)})
              </option>
            ))}
          </select>
        </div>
        <TextField id="send-text" label={t('send.text')} value={text} onInput={setText} />
        <Problem error={action.error} />
        <button type="submit" disabled={action.busy || notifiers.length === 0}>
          {t('send.send')}
        </button>
      </form>
      {sent !== undefined && <NotificationState key={sent} org={org} app={app} id={sent} onChange={props.onChange} />}
    </>
  );
}
