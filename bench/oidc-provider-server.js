// panva's oidc-provider set up for the client_credentials scenario of bench/run.js: one
// confidential client, JWT access tokens signed ES256 for one resource server. Prints
// "listening on URL" like `idp serve`, so the runner treats both alike.
import { createServer } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import { Provider } from 'oidc-provider';

const [clientId, clientSecret] = process.argv.slice(2);
const es256 = await generateKeyPair('ES256', { extractable: true });
const rs256 = await generateKeyPair('RS256', { extractable: true });
const keys = [
  { ...(await exportJWK(es256.privateKey)), alg: 'ES256', use: 'sig', kid: 'es' },
  { ...(await exportJWK(rs256.privateKey)), alg: 'RS256', use: 'sig', kid: 'rs' },
];

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(url, {
  jwks: { keys },
  clients: [{ client_id: clientId, client_secret: clientSecret, grant_types: ['client_credentials'], response_types: [], redirect_uris: [] }],
  scopes: ['api'],
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'urn:idp:api',
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'api', accessTokenFormat: 'jwt', accessTokenTTL: 3600, jwt: { sign: { alg: 'ES256' } } }),
    },
  },
});
server.on('request', provider.callback());
process.stdout.write(`oidc-provider listening on ${url}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
