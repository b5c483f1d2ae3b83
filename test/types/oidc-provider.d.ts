// oidc-provider ships no types; the tests use a handful of its members (test/transport/oauth-provider.test.ts).
declare module 'oidc-provider';
