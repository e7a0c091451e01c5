#include "ledger/store/sqlite_wal_buffer.hpp"

#include <sqlite3.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace corridor {
namespace {

constexpr int frame_header_bytes = 24;  // a WAL frame's header (SQLite's file format)

sqlite3_vfs* platform_vfs = nullptr;  // the default before ours: it does the real work

// A WAL file: the platform's file after this header, in the same allocation.
struct wal_file {
    sqlite3_file base;  // its methods: wal_methods
    sqlite3_file* real;
    char* data;              // gathered bytes, for the file from `offset` on
    int size;                // how many
    bool flush_after_write;  // the frame header just written opens a commit frame
    sqlite3_int64 offset;
};

wal_file* of(sqlite3_file* file) {
    return reinterpret_cast<wal_file*>(file);
}

int flush(wal_file* f) {
    if (f->size == 0) return SQLITE_OK;
    int rc = f->real->pMethods->xWrite(f->real, f->data, f->size, f->offset);
    f->size = 0;
    return rc;
}

int wal_close(sqlite3_file* file) {
    wal_file* f = of(file);
    int rc = flush(f);
    int closed = f->real->pMethods->xClose(f->real);
    std::free(f->data);
    f->data = nullptr;
    return rc != SQLITE_OK ? rc : closed;
}

int wal_read(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset) {
    wal_file* f = of(file);
    if (int rc = flush(f); rc != SQLITE_OK) return rc;
    return f->real->pMethods->xRead(f->real, out, amount, offset);
}

int wal_write(sqlite3_file* file, const void* in, int amount, sqlite3_int64 offset) {
    wal_file* f = of(file);
    if (!f->data) f->data = static_cast<char*>(std::malloc(wal_buffer_bytes_max));
    if (!f->data || amount > wal_buffer_bytes_max) {
        // No room to gather it: written as it comes, after what was gathered.
        if (int rc = flush(f); rc != SQLITE_OK) return rc;
        f->flush_after_write = false;
        return f->real->pMethods->xWrite(f->real, in, amount, offset);
    }
    bool follows = f->size > 0 && offset == f->offset + f->size;
    if (!follows || f->size + amount > wal_buffer_bytes_max) {
        if (int rc = flush(f); rc != SQLITE_OK) return rc;
        f->offset = offset;
    }
    std::memcpy(f->data + f->size, in, static_cast<std::size_t>(amount));
    f->size += amount;
    if (f->flush_after_write) {
        // The page of a commit frame: in the file before SQLite publishes the commit.
        f->flush_after_write = false;
        return flush(f);
    }
    if (amount == frame_header_bytes) {
        // Bytes 4-7 of a frame header: the database's size in pages after a commit, else zero.
        const auto* header = static_cast<const unsigned char*>(in);
        f->flush_after_write = (header[4] | header[5] | header[6] | header[7]) != 0;
    }
    return SQLITE_OK;
}

int wal_truncate(sqlite3_file* file, sqlite3_int64 size) {
    wal_file* f = of(file);
    if (int rc = flush(f); rc != SQLITE_OK) return rc;
    return f->real->pMethods->xTruncate(f->real, size);
}

int wal_sync(sqlite3_file* file, int flags) {
    wal_file* f = of(file);
    if (int rc = flush(f); rc != SQLITE_OK) return rc;
    return f->real->pMethods->xSync(f->real, flags);
}

int wal_file_size(sqlite3_file* file, sqlite3_int64* size) {
    wal_file* f = of(file);
    if (int rc = flush(f); rc != SQLITE_OK) return rc;
    return f->real->pMethods->xFileSize(f->real, size);
}

int wal_lock(sqlite3_file* file, int level) {
    return of(file)->real->pMethods->xLock(of(file)->real, level);
}

int wal_unlock(sqlite3_file* file, int level) {
    return of(file)->real->pMethods->xUnlock(of(file)->real, level);
}

int wal_check_reserved_lock(sqlite3_file* file, int* out) {
    return of(file)->real->pMethods->xCheckReservedLock(of(file)->real, out);
}

int wal_file_control(sqlite3_file* file, int op, void* arg) {
    wal_file* f = of(file);
    if (int rc = flush(f); rc != SQLITE_OK) return rc;
    return f->real->pMethods->xFileControl(f->real, op, arg);
}

int wal_sector_size(sqlite3_file* file) {
    return of(file)->real->pMethods->xSectorSize(of(file)->real);
}

int wal_device_characteristics(sqlite3_file* file) {
    return of(file)->real->pMethods->xDeviceCharacteristics(of(file)->real);
}

// A WAL file has no shared memory and no mapping of its own (the database file has them).
int wal_shm_map(sqlite3_file*, int, int, int, void volatile**) {
    return SQLITE_IOERR_SHMMAP;
}
int wal_shm_lock(sqlite3_file*, int, int, int) {
    return SQLITE_IOERR_SHMLOCK;
}
void wal_shm_barrier(sqlite3_file*) {}
int wal_shm_unmap(sqlite3_file*, int) {
    return SQLITE_OK;
}
int wal_fetch(sqlite3_file*, sqlite3_int64, int, void** out) {
    *out = nullptr;  // read it instead
    return SQLITE_OK;
}
int wal_unfetch(sqlite3_file*, sqlite3_int64, void*) {
    return SQLITE_OK;
}

const sqlite3_io_methods wal_methods = {
    3,
    wal_close,
    wal_read,
    wal_write,
    wal_truncate,
    wal_sync,
    wal_file_size,
    wal_lock,
    wal_unlock,
    wal_check_reserved_lock,
    wal_file_control,
    wal_sector_size,
    wal_device_characteristics,
    wal_shm_map,
    wal_shm_lock,
    wal_shm_barrier,
    wal_shm_unmap,
    wal_fetch,
    wal_unfetch,
};

int open_file(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
    if (!(flags & SQLITE_OPEN_WAL)) {
        // Any other file is the platform's own, in place: our allocation is at least its size.
        return platform_vfs->xOpen(platform_vfs, name, file, flags, out_flags);
    }
    wal_file* f = of(file);
    std::memset(f, 0, sizeof(wal_file));
    f->real = reinterpret_cast<sqlite3_file*>(f + 1);
    int rc = platform_vfs->xOpen(platform_vfs, name, f->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        if (f->real->pMethods) f->real->pMethods->xClose(f->real);
        f->base.pMethods = nullptr;  // nothing to close
        return rc;
    }
    f->base.pMethods = &wal_methods;
    return SQLITE_OK;
}

int delete_file(sqlite3_vfs*, const char* name, int sync_dir) {
    return platform_vfs->xDelete(platform_vfs, name, sync_dir);
}
int access(sqlite3_vfs*, const char* name, int flags, int* out) {
    return platform_vfs->xAccess(platform_vfs, name, flags, out);
}
int full_pathname(sqlite3_vfs*, const char* name, int size, char* out) {
    return platform_vfs->xFullPathname(platform_vfs, name, size, out);
}
void* dl_open(sqlite3_vfs*, const char* name) {
    return platform_vfs->xDlOpen(platform_vfs, name);
}
void dl_error(sqlite3_vfs*, int size, char* out) {
    platform_vfs->xDlError(platform_vfs, size, out);
}
void (*dl_sym(sqlite3_vfs*, void* handle, const char* symbol))(void) {
    return platform_vfs->xDlSym(platform_vfs, handle, symbol);
}
void dl_close(sqlite3_vfs*, void* handle) {
    platform_vfs->xDlClose(platform_vfs, handle);
}
int randomness(sqlite3_vfs*, int size, char* out) {
    return platform_vfs->xRandomness(platform_vfs, size, out);
}
int sleep_us(sqlite3_vfs*, int microseconds) {
    return platform_vfs->xSleep(platform_vfs, microseconds);
}
int current_time(sqlite3_vfs*, double* out) {
    return platform_vfs->xCurrentTime(platform_vfs, out);
}
int last_error(sqlite3_vfs*, int size, char* out) {
    return platform_vfs->xGetLastError(platform_vfs, size, out);
}
int current_time_ms(sqlite3_vfs*, sqlite3_int64* out) {
    return platform_vfs->xCurrentTimeInt64(platform_vfs, out);
}
int set_system_call(sqlite3_vfs*, const char* name, sqlite3_syscall_ptr call) {
    return platform_vfs->xSetSystemCall(platform_vfs, name, call);
}
sqlite3_syscall_ptr get_system_call(sqlite3_vfs*, const char* name) {
    return platform_vfs->xGetSystemCall(platform_vfs, name);
}
const char* next_system_call(sqlite3_vfs*, const char* name) {
    return platform_vfs->xNextSystemCall(platform_vfs, name);
}

sqlite3_vfs buffered_vfs;

}  // namespace

void install_sqlite_wal_buffer() {
    static std::once_flag once;
    std::call_once(once, [] {
        platform_vfs = sqlite3_vfs_find(nullptr);
        // The platform's (unix) VFS of SQLite 3.x: version 3, the methods forwarded below.
        if (!platform_vfs || platform_vfs->iVersion < 3) return;
        buffered_vfs = sqlite3_vfs{
            3,
            static_cast<int>(sizeof(wal_file)) + platform_vfs->szOsFile,
            platform_vfs->mxPathname,
            nullptr,
            "corridor-wal-buffer",
            nullptr,
            open_file,
            delete_file,
            access,
            full_pathname,
            dl_open,
            dl_error,
            dl_sym,
            dl_close,
            randomness,
            sleep_us,
            current_time,
            last_error,
            current_time_ms,
            set_system_call,
            get_system_call,
            next_system_call,
        };
        sqlite3_vfs_register(&buffered_vfs, 1);
    });
}

}  // namespace corridor
