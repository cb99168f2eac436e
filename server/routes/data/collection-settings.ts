/**
 * A collection's settings (docs/api.md#collection-settings): GET and PUT
 * /{org}/{app}/{collection}/_settings, the application's administrators only.
 */
import type { Context } from 'hono';
import type { Env } from '../../env.js';
import type { router } from '../../openapi.js';
import { ok } from '../../envelope.js';
import { define, otherMethodsNotAllowed } from './define.js';
import { administersApp, dataLocation, readEntityBody } from './request.js';
import { Forbidden } from '../../../src/errors.js';
import { changeCollectionSettings, readCollectionSettings, type CollectionSettings } from '../../../src/data/collection-settings.js';

const SETTINGS = '/{collection}/_settings';
// Settings are no list of entities: a tag of their own in /openapi.json.
const SETTINGS_TAG = 'Collection settings';

/** Settings are the application's administrators' (docs/api.md#collection-settings). */
async function requireAdministrator(c: Context<Env>): Promise<void> {
  if (!(await administersApp(c))) throw Forbidden("a collection's settings are for the application's administrators");
}

function settingsResponse(c: Context<Env>, action: string, settings: CollectionSettings) {
  return ok(c, { action, organization: c.get('appScope').org, application: c.get('appScope').app, location: dataLocation(c), extra: { data: settings } });
}

/** Declared before the entity routes, which would take `_settings` for an entity's name. */
export function collectionSettingsRoutes(app: ReturnType<typeof router>): void {
  define(
    app,
    'get',
    SETTINGS,
    "A collection's settings: the property paths it leaves out of the property index (administrators)",
    async (c) => {
      await requireAdministrator(c);
      return settingsResponse(c, 'get', await readCollectionSettings(c.get('deps'), c.get('appScope').app.uuid, c.req.param('collection') ?? ''));
    },
    { tag: SETTINGS_TAG },
  );
  define(
    app,
    'put',
    SETTINGS,
    'Change a collection\'s settings: {"unindexed": [paths]} leaves those properties out of the property index (administrators)',
    async (c) => {
      await requireAdministrator(c);
      const settings = await changeCollectionSettings(c.get('deps'), c.get('appScope').app.uuid, c.req.param('collection') ?? '', await readEntityBody(c));
      return settingsResponse(c, 'put', settings);
    },
    { body: true, tag: SETTINGS_TAG },
  );
  otherMethodsNotAllowed(app, SETTINGS, ['get', 'put']);
}
