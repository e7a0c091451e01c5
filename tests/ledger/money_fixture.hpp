#pragma once
// A migrated throw-away database for ledger tests: a temporary SQLite file, or a new database on
// the PostgreSQL the test run started (CORRIDOR_TEST_POSTGRES_URL_FILE).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include "ledger/database.hpp"
#include "ledger/migrations.hpp"

namespace corridor::testing {

inline std::string money_test_database_url() {
    static std::mt19937_64 names(std::random_device{}());
    std::string suffix = std::to_string(names() % 1000000000000ULL);
    if (const char* url_file = std::getenv("CORRIDOR_TEST_POSTGRES_URL_FILE")) {
        std::ifstream in(url_file);
        std::string base;
        std::getline(in, base);
        auto admin = open_session(*database_url::parse(base));
        *admin << "CREATE DATABASE money_" + suffix;
        return base.substr(0, base.rfind('/')) + "/money_" + suffix;
    }
    auto path = std::filesystem::temp_directory_path() / ("corridor-money-" + suffix + ".db");
    return "sqlite:" + path.string();
}

inline session_ptr open_money_database() {
    auto session = open_session(*database_url::parse(money_test_database_url()));
    apply_migrations(*session);
    return session;
}

}  // namespace corridor::testing
