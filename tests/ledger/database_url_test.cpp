// Database URLs as they may appear in logs and messages: never with a password.
#include <catch2/catch.hpp>

#include "ledger/store/database.hpp"

using namespace corridor;

TEST_CASE("redacted hides the password of a PostgreSQL URL, wherever it is given",
          "[ledger][database]") {
    auto redacted = [](const char* text) { return database_url::parse(text)->redacted(); };
    CHECK(redacted("postgresql://corridor:s3cret@db.example:5432/corridor") ==
          "postgresql://corridor:***@db.example:5432/corridor");
    CHECK(redacted("postgresql://corridor@db.example/corridor") ==
          "postgresql://corridor@db.example/corridor");
    CHECK(redacted("postgresql://db.example/corridor?user=c&password=s3cret&sslmode=require") ==
          "postgresql://db.example/corridor?user=c&password=***&sslmode=require");
    CHECK(redacted("postgres://u:a@db/x?password=b") == "postgres://u:***@db/x?password=***");
    CHECK(redacted("sqlite:var/corridor.db") == "sqlite:var/corridor.db");
}

TEST_CASE("a SQLite database that cannot be opened is named with the reason",
          "[ledger][database]") {
    auto failure = [](const std::string& url) {
        try {
            open_session(*database_url::parse(url));
        } catch (const std::exception& error) {
            return std::string(error.what());
        }
        return std::string("(opened)");
    };
    CHECK(failure("sqlite:/nonexistent-corridor-folder/x.db") ==
          "cannot open SQLite database /nonexistent-corridor-folder/x.db: its folder "
          "/nonexistent-corridor-folder does not exist");
    CHECK(failure("sqlite:/") == "cannot open SQLite database /: it is a folder, not a file");
}
