/**
 * A store that cannot be opened for a reason the operator must fix (a read-only file, a folder that
 * cannot be created, a file that is no database): said in one line naming the file and why, and
 * exit status 2 like a configuration problem (src/main.ts), not an SQLite stack trace.
 */
export class StoreOpenError extends Error {
    constructor(message) {
        super(message);
        this.name = 'StoreOpenError';
    }
}
/** What SQLite's (or the file system's) error means for the file at `file`; undefined when not the operator's to fix. */
export function sqliteOpenProblem(file, err) {
    const code = String(err?.code ?? '');
    const said = err?.message ?? String(err);
    const why = (text) => new StoreOpenError(`the SQLite database ${file} ${text} (${code}: ${said})`);
    if (code.startsWith('SQLITE_READONLY') || code === 'EROFS')
        return why('is read-only to toolwatch (file or folder permissions, an immutable file, a read-only mount): toolwatch writes ' +
            'to it and creates its -wal and -shm files beside it; make both writable, or point DATABASE_URL elsewhere');
    if (code === 'EACCES' || code === 'EPERM' || code === 'SQLITE_PERM' || code.startsWith('SQLITE_AUTH'))
        return why('cannot be created or written: permission denied (file or folder permissions)');
    if (code.startsWith('SQLITE_CANTOPEN'))
        return why('cannot be opened: its folder is missing or not writable, or the path is not a file');
    if (code === 'SQLITE_NOTADB')
        return why('is not a SQLite database');
    if (code.startsWith('SQLITE_CORRUPT'))
        return why('is corrupt: restore it from a backup');
    return undefined;
}
//# sourceMappingURL=open-error.js.map