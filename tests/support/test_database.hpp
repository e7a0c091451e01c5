#pragma once
// A fresh database for one test, so that tests never see each other's rows and run in any order.
//
// By default the database is a temporary SQLite file. When CORRIDOR_TEST_POSTGRES_URL_FILE names a
// file holding a PostgreSQL URL (the server the test run starts), the database is instead a new
// database with a random name created on that server, so the same store tests run on both backends.
// The database is migrated unless the test asks for an empty one, and removed when the object dies.
#include <soci/soci.h>

#include <memory>
#include <string>

#include "ledger/store/database.hpp"

namespace corridor::testing {

enum class schema { migrated, empty };

class test_database {
public:
    explicit test_database(schema initial = schema::migrated);
    ~test_database();
    test_database(const test_database&) = delete;
    test_database& operator=(const test_database&) = delete;

    soci::session& session() { return *session_; }
    database_backend backend() const { return url_.backend; }
    const database_url& url() const { return url_; }
    // A second connection to the same database, for tests of concurrent access.
    session_ptr open_another() const { return open_session(url_); }

private:
    database_url url_;
    std::string sqlite_path_;         // set on SQLite
    std::string postgres_admin_url_;  // set on PostgreSQL: the server's maintenance database
    std::string postgres_name_;       // set on PostgreSQL: the database made for this test
    session_ptr session_;
};

// The PostgreSQL URL the test run provides, or an empty string when the tests run on SQLite.
// Throws when CORRIDOR_TEST_POSTGRES_URL_FILE is set but unreadable, so that a broken PostgreSQL
// set-up fails the run instead of silently testing SQLite twice.
std::string postgres_url_from_environment();

}  // namespace corridor::testing
