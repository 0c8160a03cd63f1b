// better-sqlite3 reads SQLITE_USE_URI once, when its native addon loads. URI filenames let the
// doctor open a database as immutable (`file:…?immutable=1`), so inspecting it creates no -shm or
// -wal file; plain paths, as the server uses, are unaffected. Imported first by main.ts.
process.env.SQLITE_USE_URI ??= '1';
