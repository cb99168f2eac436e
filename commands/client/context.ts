/**
 * What every remote command works with: the server URL, the profile, the token, the default
 * organization and application — each from the flag, else its IDP_* variable (commander reads
 * those), else the saved profile, else the default. Requests go through `api`, which signs them
 * with the profile's access token and, when it has expired, refreshes it once with the stored
 * refresh token (through the public client `admin-cli`) before asking to log in again.
 */
import { createHttp, errorOf, parseBaseUrl, type Http, type HttpRequest, type HttpResponse } from './http.js';
import { DEFAULT_PROFILE, loadProfile, updateProfile, type Profile } from './profiles.js';
import { AppError } from '../../src/errors.js';
import { ServerError, UsageError } from './errors.js';
import { ADMIN_CLI, DEFAULT_URL, withTokens, type TokenSet } from './api.js';
import { outputModeOf, type OutputFlags, type OutputMode } from './output.js';

export interface GlobalFlags extends OutputFlags {
  url?: string;
  token?: string;
  profile?: string;
  org?: string;
  app?: string;
}

/** Refresh a little before expiry, so a request never starts with a token about to lapse. */
const EXPIRY_MARGIN_MS = 30_000;

export interface ApiRequest extends HttpRequest {
  /** Send the profile's or --token's bearer token (default true). */
  auth?: boolean;
}

export interface Ctx {
  readonly profileName: string;
  readonly url: string;
  /** The command that signs this profile in to this URL: `idp login [--profile P] [--url U]`. */
  readonly loginCommand: string;
  readonly mode: OutputMode;
  readonly http: Http;
  profile(): Profile;
  /** --org/--app, their IDP_* variables or the profile's, if any. */
  readonly defaults: { org?: string; app?: string };
  /** The organization of the command: --org, IDP_ORG or the profile's; a usage error if none. */
  org(): string;
  app(): string;
  /** Sends a request and returns the JSON of a 2xx answer; anything else is thrown. */
  call(req: ApiRequest): Promise<unknown>;
  /** Sends a request and returns the raw answer, whatever its status. */
  send(req: ApiRequest): Promise<HttpResponse>;
  saveProfile(change: (profile: Profile) => Profile): Promise<Profile>;
  close(): Promise<void>;
}

export async function createContext(flags: GlobalFlags, env: NodeJS.ProcessEnv = process.env): Promise<Ctx> {
  const profileName = flags.profile ?? DEFAULT_PROFILE;
  let profile = await loadProfile(profileName, env);
  const url = parseBaseUrl(flags.url ?? profile.url ?? DEFAULT_URL);
  const http = createHttp(url);
  // A profile's tokens belong to the server it logged in to; --url elsewhere does not send them.
  const profileTokens = () => (profile.url !== undefined && parseBaseUrl(profile.url) === url ? profile : {});

  const need = (value: string | undefined, what: 'org' | 'app') => {
    if (value) return value;
    const flag = what === 'org' ? 'organization' : 'application';
    throw new UsageError(`no ${flag} given: pass --${what} NAME, set IDP_${what.toUpperCase()}, or run \`idp config set ${what} NAME\``);
  };

  async function refresh(): Promise<boolean> {
    const refreshToken = profileTokens().refresh_token;
    if (!refreshToken) return false;
    const res = await http.send({
      method: 'POST',
      path: '/connect/token',
      form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: ADMIN_CLI },
    });
    if (res.status !== 200) return false;
    profile = await updateProfile(profileName, (current) => withTokens(current, res.body as TokenSet), env);
    return true;
  }

  function bearer(): string | undefined {
    return flags.token ?? profileTokens().access_token;
  }

  async function send(req: ApiRequest): Promise<HttpResponse> {
    // An explicit token (fixtures signing in as each organization's owner) is sent as it is.
    if (req.token !== undefined) return http.send(req);
    const auth = req.auth ?? true;
    const fromProfile = auth && flags.token === undefined && profileTokens().access_token !== undefined;
    if (fromProfile && (profile.expires_at ?? Infinity) < Date.now() + EXPIRY_MARGIN_MS) await refresh();
    const first = await http.send({ ...req, token: auth ? bearer() : undefined });
    if (first.status === 401 && auth && bearer() === undefined) throw refused(req, first, `run \`${loginCommand}\` (or pass --token)`);
    // --token or IDP_TOKEN: there is nothing to refresh.
    if (first.status === 401 && auth && !fromProfile)
      throw refused(req, first, `pass a valid --token (or IDP_TOKEN), or leave it out and run \`${loginCommand}\``);
    if (first.status === 403 && auth) throw refused(req, first, `run \`${loginCommand}\` as a user who may, or pass --token`);
    // A streamed body is gone once sent: no second try.
    if (first.status !== 401 || !fromProfile || req.stream !== undefined) return first;
    if (!(await refresh())) throw sessionExpired(first);
    const second = await http.send({ ...req, token: bearer() });
    if (second.status === 401) throw sessionExpired(second);
    if (second.status === 403) throw refused(req, second, `run \`${loginCommand}\` as a user who may, or pass --token`);
    return second;
  }

  // The URL too when it is not the one the profile signs in to.
  const loginUrl = profile.url === undefined || parseBaseUrl(profile.url) === url ? '' : ` --url ${url}`;
  const loginCommand = `idp login${profileName === DEFAULT_PROFILE ? '' : ` --profile ${profileName}`}${loginUrl}`;

  /** A request refused for want of a token, or of a good one: the server's words and what to do. */
  function refused(req: HttpRequest, res: HttpResponse, next: string): AppError {
    const refusal = errorOf(url, req, res);
    return new ServerError(refusal.status, refusal.error, `${refusal.message}: ${next}`, refusal.body);
  }

  function sessionExpired(res: HttpResponse): AppError {
    const reason = errorOf(url, { method: 'GET', path: '' }, res).message;
    return new AppError(401, 'unauthorized', `${reason}; your session has ended — run \`${loginCommand}\` again`);
  }

  return {
    profileName,
    url,
    loginCommand,
    mode: outputModeOf(flags),
    http,
    profile: () => profile,
    defaults: { org: flags.org ?? profile.org, app: flags.app ?? profile.app },
    org: () => need(flags.org ?? profile.org, 'org'),
    app: () => need(flags.app ?? profile.app, 'app'),
    send,
    async call(req) {
      const res = await send(req);
      if (res.status >= 200 && res.status < 300) return res.body ?? res.text;
      throw errorOf(url, req, res);
    },
    async saveProfile(change) {
      profile = await updateProfile(profileName, change, env);
      return profile;
    },
    close: () => http.close(),
  };
}
