/**
 * The part of the `usergrid` npm package (0.10.11, lib/usergrid.js) that the SDK test drives,
 * typed from its source. Callbacks are Node-style: the first argument is `true` (or a request
 * error) when the call failed, `null`/`false` when it succeeded.
 */
declare module 'usergrid' {
  namespace usergrid {
    type SdkError = boolean | Error | null | undefined;

    interface EntityData {
      uuid?: string;
      type?: string;
      name?: string;
      username?: string;
      [property: string]: unknown;
    }

    /** The response body as the SDK hands it over; `statusCode` is added by the SDK on failures. */
    interface ResponseBody {
      action?: string;
      path?: string;
      uri?: string;
      entities?: EntityData[];
      count?: number;
      cursor?: string;
      params?: Record<string, string[]>;
      access_token?: string;
      user?: EntityData;
      error?: string;
      error_description?: string;
      statusCode?: number;
      [member: string]: unknown;
    }

    interface ClientOptions {
      URI: string;
      orgName: string;
      appName: string;
      authType?: 'CLIENT_ID' | 'APP_USER' | 'NONE';
      clientId?: string;
      clientSecret?: string;
      token?: string;
      logging?: boolean;
      buildCurl?: boolean;
    }

    interface RequestOptions {
      method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
      endpoint: string;
      qs?: Record<string, string | number>;
      body?: unknown;
      mQuery?: boolean;
    }

    type Done<T extends unknown[]> = (err: SdkError, ...results: T) => void;

    interface CollectionOptions {
      type: string;
      qs?: Record<string, string | number>;
    }

    interface ActivityBody {
      actor: Record<string, unknown>;
      verb: string;
      content: string;
      [property: string]: unknown;
    }

    class client {
      constructor(options: ClientOptions);
      request(options: RequestOptions, callback: Done<[ResponseBody]>): void;
      createEntity(data: EntityData & { type: string; getOnExist?: boolean }, callback: Done<[entity, ResponseBody]>): void;
      getEntity(data: EntityData & { type: string }, callback: Done<[entity, ResponseBody]>): void;
      createCollection(options: CollectionOptions, callback: Done<[collection, ResponseBody]>): void;
      createGroup(options: { path: string; [property: string]: unknown }, callback: Done<[group]>): void;
      signup(username: string, password: string, email: string, name: string, callback: Done<[entity, ResponseBody]>): void;
      login(username: string, password: string, callback: Done<[ResponseBody, entity]>): void;
      getLoggedInUser(callback: Done<[ResponseBody | null, entity | null]>): void;
      isLoggedIn(): boolean;
      logout(): void;
      getToken(): string | null;
      createUserActivity(user: string, options: ActivityBody, callback: Done<[entity]>): void;
      createUserActivityWithEntity(user: entity, content: string, callback: Done<[entity]>): void;
      getFeedForUser(username: string, callback: Done<[ResponseBody, EntityData[]]>): void;
      delete(options: { type: string; qs: Record<string, string | number> }, callback: Done<[ResponseBody]>): void;
    }

    class entity {
      get(): EntityData;
      get(field: string): unknown;
      set(key: string, value: unknown): void;
      set(data: EntityData): void;
      save(callback: Done<[ResponseBody, entity]>): void;
      fetch(callback: Done<[ResponseBody, entity]>): void;
      destroy(callback: Done<[ResponseBody]>): void;
      connect(relation: string, other: entity, callback: Done<[ResponseBody]>): void;
      disconnect(relation: string, other: entity, callback: Done<[ResponseBody]>): void;
      getConnections(relation: string, callback: Done<[ResponseBody, EntityData[]]>): void;
      getConnections(relation: string, options: { qs: Record<string, string | number> }, callback: Done<[ResponseBody, EntityData[]]>): void;
      getGroups(callback: Done<[ResponseBody, EntityData[]]>): void;
      getActivities(callback: Done<[ResponseBody, EntityData[]]>): void;
      getFollowing(callback: Done<[ResponseBody, EntityData[]]>): void;
      getFollowers(callback: Done<[ResponseBody, EntityData[]]>): void;
    }

    class collection {
      fetch(callback: Done<[ResponseBody]>): void;
      hasNextPage(): string | null;
      getNextPage(callback: Done<[ResponseBody]>): void;
      hasPreviousPage(): boolean;
      getPreviousPage(callback: Done<[ResponseBody]>): void;
      hasNextEntity(): boolean;
      getNextEntity(): entity;
      resetEntityPointer(): void;
      getFirstEntity(): entity | null;
      addEntity(data: EntityData, callback: Done<[entity]>): void;
      destroyEntity(item: entity, callback: Done<[ResponseBody]>): void;
    }

    class group extends entity {
      members(callback: Done<[entity[]]>): void;
      add(options: { user: entity }, callback: Done<[ResponseBody, entity[]]>): void;
      /** The SDK reads `options.user.username` directly, so it takes the user's data, not an Entity. */
      remove(options: { user: { username: string } }, callback: Done<[ResponseBody, entity[]]>): void;
      feed(callback: Done<[ResponseBody, EntityData[]]>): void;
      createGroupActivity(options: { user: entity; content: string }, callback: Done<[entity]>): void;
    }

    const AUTH_CLIENT_ID: 'CLIENT_ID';
    const AUTH_APP_USER: 'APP_USER';
    const AUTH_NONE: 'NONE';
  }
  export = usergrid;
}
