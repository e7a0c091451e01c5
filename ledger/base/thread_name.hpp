#pragma once
// Names the calling thread (at most 15 characters) so that top -H, perf and /proc show which of
// the process's threads does what: io-N, db-N, ledger-writer,
// wal-checkpoint, upkeep, webhooks (the delivery loop), outbound (webhook HTTP).
#include <pthread.h>

#include <string>

namespace corridor {

inline void name_this_thread(const std::string& name) {
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
}

}  // namespace corridor
