export {
  ArchiveError,
  type ArchiveRecord,
  ArchiveStore,
  type ArchiveStoreOptions,
  type DecodedArchive,
  decodeArchive,
  decodeArchiveFile,
  encodeRecord,
  findArchivedItem,
  readArchiveFile,
  type SkippedRegion,
} from './archive.js';
export {
  type ArchiveAddress,
  ArchiveItemIdSchema,
  ArchiveParamsSchema,
  ArchiveQuerySchema,
  apiAddresses,
  archiveApiAddress,
  findArchiveAddress,
} from './archive-address.js';
export { ArtifactRegistry, ArtifactRegistryError } from './artifact-registry.js';
export { DEFAULT_MAX_ENTRIES, MemoryStateStore, type MemoryStateStoreOptions } from './memory-state-store.js';
export { DEFAULT_FLUSH_INTERVAL_MS, StateSnapshot, type StateSnapshotOptions } from './state-snapshot.js';
export type { StateStore } from './state-store.js';
