/**
 * @fastify/static, which serves the dashboard. In the package this file is a bundle of it
 * (scripts/bundle-vendored.ts): it installs 8.5 MB (glob, minimatch, lru-cache, ...) to serve one folder of
 * three files. See docs/decisions/019-install-size.md.
 */
export { default } from '@fastify/static';
