// Node has no IndexedDB: fake-indexeddb provides the globals (indexedDB, IDBKeyRange, …).
import 'fake-indexeddb/auto'
