#include "ledger/store/pending_commit.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "ledger/store/database.hpp"
#include "ledger/store/native_connection.hpp"
#include "ledger/store/outbox.hpp"

namespace corridor {

pending_commit::pending_commit(pending_commit&& other) noexcept
    : session_(std::exchange(other.session_, nullptr)) {}

pending_commit& pending_commit::operator=(pending_commit&& other) noexcept {
    if (this != &other) {
        try {
            settle();
        } catch (...) {
            // As the destructor: the transaction did not commit.
        }
        session_ = std::exchange(other.session_, nullptr);
    }
    return *this;
}

pending_commit::~pending_commit() {
    try {
        settle();
    } catch (...) {
        // The transaction did not commit; the caller is past caring (see the header).
    }
}

pending_commit pending_commit::send(write_transaction& transaction, soci::session& session) {
    // Recorded events wake delivery after their commit (write_transaction::commit): that needs the
    // answer. So does a savepoint, and SQLite answers at once anyway.
    if (transaction.nested_ || backend_of(session) != database_backend::postgresql ||
        outbox_events_pending_on_this_thread()) {
        transaction.commit();
        return {};
    }
    PGconn* connection = postgres_connection(session);
    // Once sent, the transaction is the database's to finish: the write_transaction must not roll
    // it back, whatever happens to the sending.
    transaction.open_ = false;
    if (PQsendQuery(connection, "COMMIT") != 1)
        throw postgres_failure(connection, nullptr, "COMMIT");
    return pending_commit(session);
}

void pending_commit::settle() {
    if (!session_) return;
    PGconn* connection = postgres_connection(*std::exchange(session_, nullptr));
    // Every result is read, so that the connection is ready for the next statement.
    std::optional<soci::postgresql_soci_error> failure;
    bool committed = false;
    while (pg_result_ptr result{PQgetResult(connection)}) {
        if (failure) continue;
        // A COMMIT of a transaction that had failed answers ROLLBACK, without an error.
        if (PQresultStatus(result.get()) == PGRES_COMMAND_OK &&
            std::string_view(PQcmdStatus(result.get())) == "COMMIT") {
            committed = true;
        } else if (PQresultStatus(result.get()) == PGRES_COMMAND_OK) {
            failure = soci::postgresql_soci_error(
                std::string("COMMIT: answered ") + PQcmdStatus(result.get()), "40000");
        } else {
            failure = postgres_failure(connection, result.get(), "COMMIT");
        }
    }
    if (failure) throw *failure;
    if (!committed) throw postgres_failure(connection, nullptr, "COMMIT");
}

}  // namespace corridor
