/**
 * Malformed requests for every operation the server's own /openapi.json lists: its paths,
 * methods, parameters and request bodies are read from the document, so a new route is fuzzed
 * the day it is declared. Each kind of hostile input below is one fast-check arbitrary; a request
 * is built as the bytes a client sends (a raw path, headers, a body), since fetch and the URL
 * parsers would resolve dot segments and re-encode what the server must see as sent.
 */
import fc from 'fast-check';

/** The part of a JSON Schema (OpenAPI 3.1) the generator reads. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  minLength?: number;
  format?: string;
  items?: Schema;
  anyOf?: Schema[];
}

export interface Operation {
  method: string;
  /** The path as /openapi.json writes it: `/{orgId}/{appId}/{collection}`. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** The body's media types, as declared (the first is what the route reads first); none for a route without a body. */
  mediaTypes: string[];
  /** The JSON body's properties and which are required, where the schema names them. */
  properties: Record<string, Schema>;
  required: string[];
}

export type Caller = 'admin' | 'app user' | 'none';
export const CALLERS: readonly Caller[] = ['admin', 'app user', 'none'];

/** One request as it goes on the wire. `path` holds each byte as one character (latin1). */
export interface FuzzRequest {
  operation: string;
  kind: string;
  caller: Caller;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** How the body was made, when it is too large to print. */
  note?: string;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

/** Every operation of the document, in its order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const resolve = (schema: Schema | undefined): Schema => {
    if (schema?.$ref === undefined) return schema ?? {};
    return resolve(document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')]);
  };
  return Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => {
      const parameters = operation.parameters ?? [];
      const content = operation.requestBody?.content ?? {};
      const schema = resolve(Object.values(content)[0]?.schema);
      const object = schema.anyOf ? resolve(schema.anyOf[0]) : schema;
      return {
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        mediaTypes: Object.keys(content),
        properties: Object.fromEntries(Object.entries(object.properties ?? {}).map(([name, property]) => [name, resolve(property)])),
        required: object.required ?? [],
      };
    }),
  );
}

export const operationName = (op: Operation) => `${op.method} ${op.template}`;

/** What the fuzzed requests aim at, so they reach handlers and not only 404s. */
export interface Reality {
  /** For an operation, path parameters that name real things, one assignment per entry. */
  params(op: Operation): Record<string, string>[];
  /** Strings that mean something to the server (a client's id, its redirect URI, a username), for bodies. */
  values: readonly string[];
  /** Cursors the server made, decoded, each with the query it pages (docs/api.md#queries-and-paging). */
  cursors: readonly { ql?: string; payload: { v: number; o: string; k: unknown[] } }[];
}

/** What a kind of hostile input changes in an otherwise ordinary request. */
interface Draft {
  /** Another method than the operation's. */
  method?: string;
  params: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body?: Buffer;
  note?: string;
}

// ---- hostile values

const DOT_SEGMENTS = ['..', '.', '%2e%2e', '%2E%2E', '.%2e', '%2E.', '%2e', '..%2f..', '%2e%2e%2f%2e%2e%2fmanagement'];
const ENCODED_SEPARATORS = ['%2f', 'a%2Fb', '%2F..%2F', '%5c', 'a%5Cb', '%5C..%5C', '%00', 'rex%00', '%00.json', '\\', 'a\\b', '..\\..'];
/** Percent-encoded and raw (latin1 characters are sent as single bytes) invalid UTF-8. */
const INVALID_UTF8 = [
  '%ff',
  '%fe%ff',
  '%c0%af',
  '%c0%ae%c0%ae',
  '%ed%a0%80',
  '%f4%90%80%80',
  '%e2%82',
  '%80',
  'rex%ff',
  '\xff\xfe',
  '\xc0\xaf',
  'caf\xe9',
  'x\x80y',
];
const ODD_SEGMENTS = [
  '%',
  '%zz',
  '%%32%65',
  '%252e%252e',
  '%25',
  'me',
  '*',
  '**',
  "'",
  '"',
  "x'%20or%20'1'='1",
  '${user}',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '0190f4c2-0000-7000-8000-00000000beef',
  '%20',
  '+',
  '-1',
  '1e309',
  'NaN',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  'token',
  'connecting',
  'metadata',
  'x'.repeat(300),
  'x'.repeat(5000),
  '%F0%9F%90%95',
  '%E2%80%AE',
];

/** Strings with no `/`, `?` or `#`, percent-encoded as a client encodes a path segment. */
const encodedSegment = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map(encodeURIComponent);
/** Printable ASCII sent raw, as far as a request line can carry it. */
const rawSegment = fc.string({ unit: fc.constantFrom(...'!$&\'()*+,;=:@-._~%\\"<>[]^`{|}abcXYZ019'), minLength: 1, maxLength: 20 });

const hostileSegment = fc.oneof(
  fc.constantFrom(...DOT_SEGMENTS),
  fc.constantFrom(...ENCODED_SEPARATORS),
  fc.constantFrom(...INVALID_UTF8),
  fc.constantFrom(...ODD_SEGMENTS),
  encodedSegment,
  rawSegment,
);

/** Number literals JSON allows that no program holds exactly, or at all. */
const HUGE_NUMBERS = [
  '1e309',
  '-1e309',
  '1e308',
  '9007199254740993',
  '123456789012345678901234567890',
  '-0',
  '1e-400',
  '0.1e-999999',
  '18446744073709551616',
  '-9223372036854775809',
];

const HOSTILE_QUERY_VALUES = [
  "select * where name = 'x' or 1=1",
  "'; drop table entities; --",
  'select * where ' + '('.repeat(40) + 'a = 1' + ')'.repeat(40),
  'select * where a = 1' + ' and a = 1'.repeat(1200),
  'select * order by ' + Array.from({ length: 20 }, (_, i) => `p${i}`).join(', '),
  'select a.b.c.d.e.f where x within 1e309 of 1e309, -1e309',
  "select * where name = '\u0000'",
  "select * where location within 10 of 'a', 'b'",
  'eyJ0IjoxfQ',
  '!!!!',
  '%ff',
  '1e309',
  '-1',
  '0',
  '99999999999999999999',
  'NaN',
];

const WRONG_TYPES: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), { maxKeys: 3 }),
  fc.string({ maxLength: 10 }),
);

const GENERIC_FIELDS = [
  'name',
  'username',
  'password',
  'email',
  'uuid',
  'type',
  'created',
  'metadata',
  'payloads',
  'provider',
  'permission',
  'path',
  'deliver',
  'grant_type',
  'client_id',
  'token',
  'ql',
];
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', ''];

// ---- ordinary pieces, made hostile one at a time

/** A value of the schema's type that the schema would accept, as far as it says. */
function ordinaryValue(name: string, schema: Schema, salt: number, values: readonly string[]): unknown {
  if (schema.enum) return schema.enum[salt % schema.enum.length];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'array') return [ordinaryValue(name, schema.items ?? {}, salt, values)];
  if (type === 'boolean') return true;
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'object') return {};
  if (schema.format === 'email' || name === 'email') return `fuzz${salt}@example.com`;
  if (salt % 3 === 0 && values.length > 0) return values[Math.floor(salt / 3) % values.length];
  if (/uri|issuer/.test(name)) return `https://fuzz${salt}.example/cb`;
  return `fuzz${salt}`.padEnd(schema.minLength ?? 0, 'z');
}

/** An object with every declared property, or a name where the schema names none. */
function ordinaryObject(op: Operation, salt: number, values: readonly string[]): Record<string, unknown> {
  const entries = Object.entries(op.properties).filter(
    ([, schema]) => !('description' in schema && /^Refused/.test(String((schema as { description?: string }).description))),
  );
  if (entries.length === 0) return { name: `fuzz${salt}` };
  return Object.fromEntries(entries.map(([name, schema]) => [name, ordinaryValue(name, schema, salt, values)]));
}

const takesForm = (op: Operation) => op.mediaTypes.length > 0 && !op.mediaTypes.includes('application/json');

/** The body as the route reads it first: a form where it takes forms only, JSON otherwise. */
function encodeBody(op: Operation, value: unknown): { body: Buffer; type: string } {
  if (takesForm(op) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const form = new URLSearchParams(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    return { body: Buffer.from(form.toString()), type: 'application/x-www-form-urlencoded' };
  }
  return { body: Buffer.from(JSON.stringify(value) ?? 'null'), type: 'application/json' };
}

const salted = fc.integer({ min: 0, max: 1_000_000 });

/** Real path parameters, with at most one replaced by `segment` when given. */
function paramsArbitrary(op: Operation, real: Reality, segment?: fc.Arbitrary<string>): fc.Arbitrary<Record<string, string>> {
  const choices = real.params(op);
  const base = choices.length > 0 ? fc.constantFrom(...choices) : fc.constant<Record<string, string>>({});
  if (segment === undefined || op.pathParams.length === 0) return base;
  return fc.tuple(base, fc.constantFrom(...op.pathParams), segment).map(([params, name, value]) => ({ ...params, [name]: value }));
}

function draft(params: Record<string, string>, parts: Partial<Draft> = {}): Draft {
  return { params, query: [], headers: {}, ...parts };
}

function jsonDraft(params: Record<string, string>, text: string | Buffer, note?: string): Draft {
  return draft(params, { body: Buffer.isBuffer(text) ? text : Buffer.from(text), headers: { 'content-type': 'application/json' }, note });
}

const withBody = (op: Operation, params: Record<string, string>, value: unknown, note?: string): Draft => {
  const { body, type } = encodeBody(op, value);
  return draft(params, { body, headers: { 'content-type': type }, note });
};

// ---- the kinds of hostile input

type Kind = (op: Operation, real: Reality) => fc.Arbitrary<Draft>;

const nesting = (depth: number, shape: 'array' | 'object' | 'mixed') => {
  let open = '';
  let close = '';
  for (let level = 0; level < depth; level++) {
    const array = shape === 'array' || (shape === 'mixed' && level % 2 === 0);
    open += array ? '[' : '{"a":';
    close = (array ? ']' : '}') + close;
  }
  return `${open}1${close}`;
};

const deepNesting: Kind = (op, real) =>
  fc
    .tuple(
      paramsArbitrary(op, real),
      fc.constantFrom(33, 34, 100, 513, 5000),
      fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
      fc.boolean(),
    )
    .map(([params, depth, shape, asField]) => {
      const nested = nesting(depth, shape);
      if (takesForm(op)) {
        const key = 'a' + '[x]'.repeat(depth);
        return draft(params, {
          body: Buffer.from(`${key}=1&grant_type=${encodeURIComponent(nested)}`),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          note: `form: a key ${depth} brackets deep, a field of JSON nested ${depth} levels (${shape})`,
        });
      }
      return jsonDraft(
        params,
        asField ? `{"name":"deep","data":${nested}}` : nested,
        `JSON nested ${depth} levels (${shape})${asField ? ' inside a field' : ''}`,
      );
    });

const hugeString: Kind = (op, real) =>
  fc
    .tuple(paramsArbitrary(op, real), fc.constantFrom(70_000, 1_048_577, 1_100_000), fc.constantFrom('body', 'chunked body', 'query', 'header', 'key'), salted)
    .map(([params, length, where, salt]) => {
      const text = 'x'.repeat(where.endsWith('body') ? length : Math.min(length, 70_000));
      const note = `${where}: a string of ${text.length} x`;
      if (where === 'query') return draft(params, { query: [[op.queryParams[0] ?? 'ql', text]], note });
      if (where === 'header') return draft(params, { headers: { 'x-fuzz': text }, note });
      if (where === 'key') return withBody(op, params, { ...ordinaryObject(op, salt, real.values), [text.slice(0, 1000)]: 1 }, 'a key of 1000 x');
      const field = Object.keys(ordinaryObject(op, salt, real.values))[0];
      const sent = withBody(op, params, { ...ordinaryObject(op, salt, real.values), [field]: text }, `${note} in '${field}'`);
      // Without a Content-Length the server counts the body as it reads it.
      if (where === 'chunked body') sent.headers['transfer-encoding'] = 'chunked';
      return sent;
    });

const wrongTypes: Kind = (op, real) =>
  fc
    .tuple(
      paramsArbitrary(op, real),
      salted,
      fc.array(fc.tuple(fc.constantFrom(...Object.keys(op.properties), ...GENERIC_FIELDS), WRONG_TYPES), { minLength: 1, maxLength: 3 }),
      fc.boolean(),
    )
    .map(([params, salt, changes, top]) =>
      withBody(op, params, top ? changes[0][1] : { ...ordinaryObject(op, salt, real.values), ...Object.fromEntries(changes) }),
    );

const INVALID_UTF8_BYTES = [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0x80]];

const invalidUtf8Body: Kind = (op, real) =>
  fc
    .tuple(paramsArbitrary(op, real), fc.constantFrom(...INVALID_UTF8_BYTES), fc.constantFrom('json', 'form', 'query', 'header'), salted)
    .map(([params, bytes, where, salt]) => {
      const bad = Buffer.from(bytes);
      const field = Object.keys(ordinaryObject(op, salt, real.values))[0];
      const latin1 = bad.toString('latin1');
      if (where === 'query')
        return draft(params, {
          query: [
            [op.queryParams[0] ?? 'ql', latin1],
            ['limit', '%ff'],
          ],
        });
      if (where === 'header') return draft(params, { headers: { 'x-fuzz': latin1, 'accept-language': latin1 } });
      if (where === 'form') {
        return draft(params, {
          body: Buffer.concat([Buffer.from(`${field}=`), bad, Buffer.from(`&grant_type=%ff%fe`)]),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
      }
      return jsonDraft(params, Buffer.concat([Buffer.from(`{"${field}":"a`), bad, Buffer.from('b"}')]));
    });

const pathKind =
  (segments: fc.Arbitrary<string>): Kind =>
  (op, real) =>
    paramsArbitrary(op, real, segments).map((params) => draft(params));

const contentTypes: Kind = (op, real) =>
  fc
    .tuple(
      paramsArbitrary(op, real),
      salted,
      fc.constantFrom(
        undefined,
        '',
        'text/plain',
        'application/xml',
        'application/json; charset=utf-16',
        'application/json;;;',
        'application/ json',
        'APPLICATION/JSON',
        'application/vnd.api+json',
        '*/*',
        'multipart/form-data',
        'multipart/form-data; boundary=zz',
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=utf-7',
      ),
      fc.constantFrom('json', 'form', 'junk'),
    )
    .map(([params, salt, type, encoding]) => {
      const value = ordinaryObject(op, salt, real.values);
      const body =
        encoding === 'json'
          ? JSON.stringify(value)
          : encoding === 'form'
            ? new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)])).toString()
            : '--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\n\u0000\r\n--z';
      return draft(params, { body: Buffer.from(body), headers: type === undefined ? {} : { 'content-type': type }, note: `${encoding} body` });
    });

const missingRequired: Kind = (op, real) =>
  fc.tuple(paramsArbitrary(op, real), salted, fc.constantFrom('one', 'all', 'empty', '{}', 'null', '[]', '""')).map(([params, salt, how]) => {
    const value = ordinaryObject(op, salt, real.values);
    if (how === 'empty') return draft(params, { body: Buffer.alloc(0), headers: op.mediaTypes.length > 0 ? { 'content-type': op.mediaTypes[0] } : {} });
    if (how === 'one' || how === 'all') {
      const required = op.required.length > 0 ? op.required : Object.keys(value).slice(0, 1);
      for (const name of how === 'one' ? required.slice(0, 1) : required) delete value[name];
      return withBody(op, params, value);
    }
    return jsonDraft(params, how);
  });

const unknownFields: Kind = (op, real) =>
  fc
    .tuple(
      paramsArbitrary(op, real),
      salted,
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), WRONG_TYPES, { maxKeys: 4 }),
      fc.constantFrom(...PROTOTYPE_KEYS),
      fc.constantFrom('few', 'many', 'long key'),
    )
    .map(([params, salt, extra, special, size]) => {
      const value: Record<string, unknown> = { ...ordinaryObject(op, salt, real.values), ...extra };
      if (size === 'many') for (let i = 0; i < 1001; i++) value[`k${i}`] = i;
      if (size === 'long key') value['k'.repeat(257)] = 1;
      // __proto__ as an own key: JSON.parse makes it one, an object literal would not.
      const text = JSON.stringify(value).replace(/^\{/, `{${JSON.stringify(special)}:{"admin":true,"roles":["admin"]},`);
      if (takesForm(op)) return withBody(op, params, { ...value, [special]: 'x' }, size === 'many' ? '1001 extra fields' : undefined);
      return jsonDraft(params, text.replace(/,}$/, '}'), size === 'many' ? '1001 extra fields' : undefined);
    });

const hugeNumbers: Kind = (op, real) =>
  fc.tuple(paramsArbitrary(op, real), salted, fc.constantFrom(...HUGE_NUMBERS), fc.constantFrom('body', 'query')).map(([params, salt, number, where]) => {
    const query: [string, string][] = ['limit', 'max_age', 'cursor', ...op.queryParams].map((name) => [name, number]);
    if (where === 'query') return draft(params, { query });
    const keys = [...Object.keys(ordinaryObject(op, salt, real.values)), 'deliver', 'expire', 'created', 'age', 'location'];
    const text = `{${keys.map((key) => `${JSON.stringify(key)}:${number}`).join(',')},"location":{"latitude":${number},"longitude":${number}}}`;
    return takesForm(op) ? withBody(op, params, Object.fromEntries(keys.map((key) => [key, number]))) : jsonDraft(params, text);
  });

const duplicateKeys: Kind = (op, real) =>
  fc
    .tuple(paramsArbitrary(op, real), salted, fc.constantFrom(...HOSTILE_QUERY_VALUES), fc.constantFrom('query', 'body'))
    .map(([params, salt, hostile, where]) => {
      const names = [...op.queryParams, 'limit', 'ql', 'access_token', 'client_id', 'cursor'];
      const query = names.flatMap((name): [string, string][] => [
        [name, '1'],
        [name, encodeURIComponent(hostile)],
      ]);
      if (where === 'query') return draft(params, { query });
      const value = ordinaryObject(op, salt, real.values);
      if (takesForm(op)) {
        const form = Object.entries(value).flatMap(([k, v]) => [`${k}=${encodeURIComponent(String(v))}`, `${k}=other`]);
        return draft(params, { body: Buffer.from(form.join('&')), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      }
      const text = Object.entries(value).flatMap(([k, v]) => [`${JSON.stringify(k)}:${JSON.stringify(v)}`, `${JSON.stringify(k)}:{"a":[]}`]);
      return jsonDraft(params, `{${text.join(',')}}`);
    });

const hostileQuery: Kind = (op, real) =>
  fc
    .tuple(
      paramsArbitrary(op, real),
      fc.constantFrom(...op.queryParams, 'ql', 'limit', 'cursor', 'access_token'),
      fc.oneof(fc.constantFrom(...HOSTILE_QUERY_VALUES).map(encodeURIComponent), encodedSegment, rawSegment, fc.constantFrom(...INVALID_UTF8)),
    )
    .map(([params, name, value]) => draft(params, { query: [[name, value]] }));

const MALFORMED_JSON = [
  '{',
  '{"name":',
  '{"name":"rex"',
  "{'name':'rex'}",
  '{"name":"rex",}',
  '[1,]',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":undefined}',
  '{"a":1}//',
  '/**/{}',
  '\ufeff{}',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '{"a":"\u0000"}',
  '{"a" 1}',
  '{}{}',
  '"',
  'nul',
  'tru',
  '-',
  '01',
  '1.',
  '.5',
  '0x10',
  '{"a":1e}',
];

const malformedJson: Kind = (op, real) =>
  fc
    .tuple(
      paramsArbitrary(op, real),
      fc.oneof(
        fc.constantFrom(...MALFORMED_JSON),
        fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value).slice(0, -1) || '{'),
      ),
    )
    .map(([params, text]) => jsonDraft(params, text));

const randomJson: Kind = (op, real) => fc.tuple(paramsArbitrary(op, real), fc.jsonValue({ maxDepth: 4 })).map(([params, value]) => withBody(op, params, value));

/** Credentials that are no credentials: they replace the caller's token. */
const hostileCredentials: Kind = (op, real) =>
  fc
    .tuple(
      paramsArbitrary(op, real),
      fc.constantFrom(
        'Bearer ',
        'Bearer x',
        'Bearer ' + 'a'.repeat(8000),
        'Bearer eyJhbGciOiJub25lIiwidHlwIjoiYXQrand0In0.eyJzdWIiOiJ4In0.',
        'Bearer a.b.c',
        'Bearer \xff\xfe',
        'Basic ',
        'Basic Og==',
        'Basic %%%',
        'Basic ' + Buffer.from('\xff:\xff', 'latin1').toString('base64'),
        'Digest x',
        'bearer',
        'Bearer x, Bearer y',
      ),
      fc.boolean(),
    )
    .map(([params, authorization, asQuery]) =>
      draft(
        params,
        asQuery
          ? {
              query: [
                ['access_token', encodeURIComponent(authorization.slice(7))],
                ['client_id', 'x'],
                ['client_secret', '%ff'],
              ],
            }
          : { headers: { authorization, cookie: 'idp_session=\xff; idp_session=x' } },
      ),
    );

const CURSOR_VALUES: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('\u0000', 'not-a-uuid', "'", 'x'.repeat(10_000), '\ud800', '', 1e308, -1e308, -0, 2 ** 53 + 1, null, true, {}, []),
  fc.tuple(fc.constantFrom(1, 2, 3, 4, 0, 99), fc.constantFrom<unknown>('\u0000', 'x', 1e308, 2, null, 'not-a-uuid', [])),
  WRONG_TYPES,
);

/** Cursors in the server's own format, with sort values it never wrote (no cursor is signed). */
const forgedCursors: Kind = (op, real) =>
  fc
    .tuple(paramsArbitrary(op, real), fc.constantFrom(...real.cursors), fc.array(fc.tuple(fc.nat(3), CURSOR_VALUES), { minLength: 1, maxLength: 3 }))
    .map(([params, { ql, payload }, changes]) => {
      const k = [...payload.k];
      for (const [at, value] of changes) k[at % Math.max(k.length, 1)] = value;
      const cursor = Buffer.from(JSON.stringify({ ...payload, k })).toString('base64url');
      return draft(params, { query: [...(ql === undefined ? [] : [['ql', encodeURIComponent(ql)] as [string, string]]), ['cursor', cursor]] });
    });

/** Methods the operation's path does not take, or no server takes. */
const otherMethods: Kind = (op, real) =>
  fc
    .tuple(paramsArbitrary(op, real), fc.constantFrom('PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'POST', 'DELETE', 'GET', 'PROPFIND', 'FUZZ'), salted)
    .map(([params, method, salt]) => ({ ...withBody(op, params, ordinaryObject(op, salt, real.values)), method }));

/** Every kind of hostile input, by name. */
export const KINDS: Readonly<Record<string, Kind>> = {
  'deep nesting': deepNesting,
  'huge strings': hugeString,
  'wrong types': wrongTypes,
  'invalid UTF-8 in the body, query or headers': invalidUtf8Body,
  'invalid UTF-8 in a path parameter': pathKind(fc.constantFrom(...INVALID_UTF8)),
  'dot segments in a path parameter': pathKind(fc.constantFrom(...DOT_SEGMENTS)),
  'encoded separators in a path parameter': pathKind(fc.constantFrom(...ENCODED_SEPARATORS)),
  'hostile path parameters': pathKind(hostileSegment),
  'unknown and missing content types': contentTypes,
  'missing required fields': missingRequired,
  'unknown fields': unknownFields,
  'huge numbers': hugeNumbers,
  'duplicate keys': duplicateKeys,
  'hostile query values': hostileQuery,
  'malformed JSON': malformedJson,
  'random JSON': randomJson,
  'hostile credentials': hostileCredentials,
  'other methods': otherMethods,
  'forged cursors': forgedCursors,
};

const ACCEPT = [undefined, 'text/html', 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8', 'application/json', '*/*', 'image/png', 'text/html;q=x', '\xff'];

/** The request target: the template with the parameters in place, then the query. */
function target(op: Operation, d: Draft): string {
  const path = op.template.replace(/\{(\w+)\}/g, (_, name: string) => d.params[name] ?? name);
  if (d.query.length === 0) return path;
  return `${path}?${d.query.map(([name, value]) => `${name}=${value}`).join('&')}`;
}

/** Malformed requests of one kind for one operation, each with one of the callers. */
export function fuzzRequests(op: Operation, kind: string, real: Reality): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(KINDS[kind](op, real), fc.constantFrom(...CALLERS), fc.constantFrom(...ACCEPT)).map(([d, caller, accept]) => ({
    operation: operationName(op),
    kind,
    caller,
    method: d.method ?? op.method,
    path: target(op, d),
    // A browser's Accept gets the pages (sign-in, account links) instead of JSON.
    headers: accept === undefined || 'accept' in d.headers ? d.headers : { accept, ...d.headers },
    body: d.body,
    note: d.note,
  }));
}

const shorten = (text: string, max = 600) => (text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`);

/** A request as a person replays it: method, path, headers and body, non-ASCII bytes escaped. */
export function describeRequest(request: FuzzRequest): string {
  const escape = (text: string) => text.replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const lines = [`${request.method} ${shorten(escape(request.path))}   (${request.kind}; as ${request.caller})`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${shorten(escape(value))}`);
  if (request.body !== undefined) lines.push('', shorten(escape(request.body.toString('latin1'))));
  if (request.note) lines.push(`(body: ${request.note})`);
  return lines.join('\n');
}
