#pragma once
// SQLite writes a transaction's WAL frames with two write() calls each (the 24-byte frame header,
// then the page), so a ledger commit of a few dozen pages made a hundred-odd system calls, each
// dirtying the same file pages again: about a tenth of the writer's time. This VFS, installed as
// SQLite's default over the platform's, gathers the consecutive writes of a WAL file in memory and
// hands them to the platform's VFS as one write:
//   - at the end of the frame that commits a transaction (its header carries the database size),
//     so that what the WAL index is about to publish is in the file before it is published, for
//     every connection and process, whatever their synchronous setting;
//   - before any other use of the file (sync, read, size, truncate, close, file controls), so the
//     sync of a commit covers every byte and a read sees every write;
//   - when a write does not follow the gathered bytes, or they would pass wal_buffer_bytes_max.
// Durability is unchanged: a commit's frames are written and then synced, as before. Other files
// (the database, the WAL index, journals) pass straight through.
namespace corridor {

// At most 64 KiB a write: SQLite's unix VFS takes at most 128 KiB - 1 bytes in one call (it masks
// the length to 17 bits), and 16 frames a call already leave one write in about 30 of before.
inline constexpr int wal_buffer_bytes_max = 64 * 1024;

// Registers the VFS as the default (once per process; before the first connection opens).
void install_sqlite_wal_buffer();

}  // namespace corridor
