/**
 * The part of the Usergrid 2.x Node.js SDK (npm `usergrid` 2.0.0-rc.2, installed as `usergrid2`)
 * that the SDK test drives, typed from its source (lib/). Callbacks are request's: an error (the
 * server's, as a UsergridResponseError, or the SDK's own `{name, description}`), the
 * UsergridResponse, and a result that depends on the call.
 */
declare module 'usergrid2/lib/client.js' {
  import type { UsergridAuth, UsergridAppAuth } from 'usergrid2/lib/auth.js';
  import type { UsergridEntity } from 'usergrid2/lib/entity.js';
  import type { UsergridUser } from 'usergrid2/lib/user.js';
  import type { UsergridQuery } from 'usergrid2/lib/query.js';
  import type { UsergridAsset } from 'usergrid2/lib/asset.js';

  /** The error a failed call reports: the server's `error` as `name`, its `error_description` as `description`. */
  export interface UsergridError {
    name: string;
    description?: string;
  }

  export interface UsergridResponse {
    ok: boolean;
    statusCode?: number;
    /** The parsed JSON body, or a Buffer when the call asked for raw bytes. */
    body: Record<string, unknown> & Buffer;
    request: { headers: Record<string, string> };
    error?: UsergridError;
    /** The envelope without its entities. */
    metadata: { path?: string; cursor?: string; params?: Record<string, string[]>; [member: string]: unknown };
    entities?: UsergridEntity[];
    entity?: UsergridEntity;
    first?: UsergridEntity;
    last?: UsergridEntity;
    user?: UsergridUser;
    users?: UsergridUser[];
    readonly hasNextPage?: boolean;
    loadNextPage(client: UsergridClient, callback: Callback): void;
  }

  export type Callback<R = unknown> = (error: UsergridError | undefined, response: UsergridResponse, result: R) => void;

  export type Body = Record<string, unknown> | Record<string, unknown>[] | UsergridEntity;

  export interface ClientOptions {
    orgId?: string;
    appId?: string;
    baseUrl?: string;
    clientId?: string;
    clientSecret?: string;
    tokenTtl?: number;
    authMode?: 'APP' | 'USER' | 'NONE';
  }

  export interface UserCredentials {
    username?: string;
    email?: string;
    password: string;
    /** Milliseconds, sent as Usergrid's `ttl`. */
    tokenTtl?: number;
  }

  export type ConnectionTarget = UsergridEntity | { type?: string; uuid?: string; name?: string; uuidOrName?: string };

  export default class UsergridClient {
    constructor(options?: ClientOptions);
    baseUrl: string;
    authMode: 'APP' | 'USER' | 'NONE';
    appAuth?: UsergridAppAuth;
    currentUser?: UsergridUser;
    tempAuth?: UsergridAuth | 'NO_AUTH';
    GET(type: string, uuidOrName: string, callback: Callback<UsergridEntity>): void;
    GET(typeOrQuery: string | UsergridQuery, callback: Callback<UsergridEntity | UsergridEntity[]>): void;
    POST(type: string, body: Body | UsergridAsset, callback: Callback<UsergridEntity | UsergridEntity[]>): void;
    POST(entity: Body, callback: Callback<UsergridEntity | UsergridEntity[]>): void;
    PUT(type: string, uuidOrName: string, body: Body, callback: Callback<UsergridEntity>): void;
    PUT(typeOrQuery: string | UsergridQuery, body: Body, callback: Callback<UsergridEntity | UsergridEntity[]>): void;
    PUT(entity: UsergridEntity, callback: Callback<UsergridEntity>): void;
    DELETE(type: string, uuidOrName: string, callback: Callback<UsergridEntity>): void;
    DELETE(entityOrQuery: UsergridEntity | UsergridQuery, callback: Callback<UsergridEntity | UsergridEntity[]>): void;
    connect(entity: UsergridEntity, relationship: string, to: ConnectionTarget, callback: Callback): void;
    connect(type: string, uuidOrName: string, relationship: string, toUuid: string, callback: Callback): void;
    connect(type: string, uuidOrName: string, relationship: string, toType: string, toName: string, callback: Callback): void;
    disconnect(entity: UsergridEntity, relationship: string, to: ConnectionTarget, callback: Callback): void;
    disconnect(type: string, uuidOrName: string, relationship: string, toUuid: string, callback: Callback): void;
    disconnect(type: string, uuidOrName: string, relationship: string, toType: string, toName: string, callback: Callback): void;
    getConnections(direction: 'IN' | 'OUT', entity: UsergridEntity, relationship: string, callback: Callback<UsergridEntity | UsergridEntity[]>): void;
    getConnections(
      direction: 'IN' | 'OUT',
      type: string,
      uuidOrName: string,
      relationship: string,
      callback: Callback<UsergridEntity | UsergridEntity[]>,
    ): void;
    setAppAuth(clientId: string, clientSecret: string, tokenTtl?: number): void;
    authenticateApp(callback: Callback<string>): void;
    authenticateUser(credentials: UserCredentials, callback: Callback<string>): void;
    authenticateUser(credentials: UserCredentials, setAsCurrentUser: boolean, callback: Callback<string>): void;
    usingAuth(auth?: UsergridAuth | string | 'NO_AUTH'): this;
  }
}

declare module 'usergrid2/lib/auth.js' {
  export class UsergridAuth {
    constructor(token?: string, expiry?: number);
    token?: string;
    expiry: number;
    /** `expires_in` of the token response, in seconds. */
    tokenTtl?: number;
    readonly hasToken: boolean;
    readonly isExpired: boolean;
    readonly isValid: boolean;
    destroy(): void;
  }
  export class UsergridAppAuth extends UsergridAuth {
    clientId: string;
    clientSecret: string;
  }
  const auth: typeof UsergridAuth & {
    readonly NO_AUTH: 'NO_AUTH';
    readonly AUTH_MODE_APP: 'APP';
    readonly AUTH_MODE_USER: 'USER';
    readonly AUTH_MODE_NONE: 'NONE';
  };
  export default auth;
}

declare module 'usergrid2/lib/entity.js' {
  import type UsergridClient from 'usergrid2/lib/client.js';
  import type { Callback, ConnectionTarget } from 'usergrid2/lib/client.js';
  import type { UsergridAuth } from 'usergrid2/lib/auth.js';
  import type { UsergridAsset } from 'usergrid2/lib/asset.js';

  export class UsergridEntity {
    constructor(data: Record<string, unknown>);
    constructor(type: string, name?: string);
    readonly uuid?: string;
    readonly name?: string;
    readonly type: string;
    readonly created?: number;
    modified?: number;
    readonly isUser: boolean;
    readonly hasAsset: boolean;
    asset?: UsergridAsset;
    [property: string]: unknown;
    reload(client: UsergridClient, callback: Callback<UsergridEntity>): void;
    save(client: UsergridClient, callback: Callback<UsergridEntity>): void;
    remove(client: UsergridClient, callback: Callback<UsergridEntity>): void;
    attachAsset(asset: UsergridAsset): void;
    uploadAsset(client: UsergridClient, callback: Callback<UsergridEntity>): void;
    downloadAsset(client: UsergridClient, contentType: string, callback: Callback<UsergridEntity>): void;
    connect(client: UsergridClient, relationship: string, to: ConnectionTarget, callback: Callback): void;
    disconnect(client: UsergridClient, relationship: string, to: ConnectionTarget, callback: Callback): void;
    getConnections(client: UsergridClient, direction: 'IN' | 'OUT', relationship: string, callback: Callback<UsergridEntity | UsergridEntity[]>): void;
    usingAuth(auth?: UsergridAuth | string | 'NO_AUTH'): this;
  }
  export default UsergridEntity;
}

declare module 'usergrid2/lib/user.js' {
  import type UsergridClient from 'usergrid2/lib/client.js';
  import type { Callback } from 'usergrid2/lib/client.js';
  import { UsergridEntity } from 'usergrid2/lib/entity.js';
  import type { UsergridAuth } from 'usergrid2/lib/auth.js';

  export class UsergridUser extends UsergridEntity {
    constructor(data: { username?: string; email?: string; password?: string; [property: string]: unknown });
    username?: string;
    email?: string;
    password?: string;
    auth?: UsergridAuth;
    create(client: UsergridClient, callback: Callback<UsergridUser>): void;
    login(client: UsergridClient, callback: Callback<string>): void;
    logout(client: UsergridClient, callback: Callback<boolean>): void;
    logoutAllSessions(client: UsergridClient, callback: Callback<boolean>): void;
    resetPassword(client: UsergridClient, oldPassword: string, newPassword: string, callback: Callback<boolean>): void;
    resetPassword(client: UsergridClient, passwords: { oldPassword: string; newPassword: string }, callback: Callback<boolean>): void;
  }
  export default UsergridUser;
}

declare module 'usergrid2/lib/query.js' {
  export class UsergridQuery {
    constructor(type: string);
    readonly _ql: string;
    eq(key: string, value: unknown): this;
    gt(key: string, value: unknown): this;
    gte(key: string, value: unknown): this;
    lt(key: string, value: unknown): this;
    lte(key: string, value: unknown): this;
    contains(key: string, value: unknown): this;
    asc(key: string): this;
    desc(key: string): this;
    limit(value: number): this;
    cursor(value: string): this;
    /** A whole ql string instead of the builder's. */
    fromString(ql: string): this;
    readonly and: this;
    readonly or: this;
    readonly not: this;
  }
  export default UsergridQuery;
}

declare module 'usergrid2/lib/asset.js' {
  export class UsergridAsset {
    constructor(filename: string, data: Buffer, originalLocation?: string, contentType?: string);
    filename?: string;
    data: Buffer;
    readonly contentLength: number;
    contentType?: string;
  }
  export default UsergridAsset;
}
