export { ArchiveError, ArchiveStore, decodeArchive, encodeRecord, readArchiveFile } from './archive.js';
export { ArtifactRegistry, ArtifactRegistryError } from './artifact-registry.js';
export {
  MemorySessionStore,
  type MemorySessionStoreOptions,
  type StoreEvent,
} from './memory-session-store.js';
