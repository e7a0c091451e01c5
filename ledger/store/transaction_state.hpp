#pragma once
// Whether a session is inside a transaction, for the few callers that write differently then
// (database.hpp's write_transaction nests as a savepoint; create_customers needs none on SQLite).
// Apart from database.hpp so that this rarely needed declaration does not rebuild every store.
#include <soci/soci.h>

namespace corridor {

bool in_transaction(soci::session& session);

}  // namespace corridor
