"""The report file: SQLite schema and migrations, writer, reader, the one opener, bundles."""
