#include "tests/support/test_database.hpp"

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ledger/store/migrations.hpp"
#include "ledger/base/random.hpp"

namespace corridor::testing {
namespace {

std::string trimmed(std::string text) {
    auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

std::string random_suffix() {
    os_random random;
    return random_hex(random, 8);
}

// The same server URL with the path naming another database.
std::string with_database_name(const std::string& server_url, const std::string& name) {
    auto parsed = boost::urls::parse_uri(server_url);
    if (!parsed) throw std::runtime_error("test PostgreSQL URL is not a URI: " + server_url);
    boost::urls::url url(*parsed);
    url.set_path("/" + name);
    return std::string(url.buffer());
}

database_url parse_or_throw(const std::string& text) {
    auto url = database_url::parse(text);
    if (!url) throw std::runtime_error("not a database URL: " + text);
    return *url;
}

}  // namespace

std::string postgres_url_from_environment() {
    const char* file = std::getenv("CORRIDOR_TEST_POSTGRES_URL_FILE");
    if (!file || !*file) return {};
    std::ifstream in(file);
    if (!in) throw std::runtime_error(std::string("cannot read the PostgreSQL URL file ") + file);
    std::stringstream text;
    text << in.rdbuf();
    std::string url = trimmed(text.str());
    if (url.empty()) throw std::runtime_error(std::string("empty PostgreSQL URL file ") + file);
    return url;
}

test_database::test_database(schema initial) {
    std::string server_url = postgres_url_from_environment();
    if (server_url.empty()) {
        auto path =
            std::filesystem::temp_directory_path() / ("corridor-unit-" + random_suffix() + ".db");
        sqlite_path_ = path.string();
        url_ = parse_or_throw("sqlite:" + sqlite_path_);
    } else {
        postgres_admin_url_ = server_url;
        postgres_name_ = "corridor_unit_" + random_suffix();
        auto admin = open_session(parse_or_throw(postgres_admin_url_));
        // The name is ours (hex digits), so splicing it into the statement is safe.
        *admin << "CREATE DATABASE " + postgres_name_;
        url_ = parse_or_throw(with_database_name(server_url, postgres_name_));
    }
    session_ = open_session(url_);
    if (initial == schema::migrated) apply_migrations(*session_);
}

test_database::~test_database() {
    session_.reset();
    if (!sqlite_path_.empty()) {
        std::error_code ignored;
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            std::filesystem::remove(sqlite_path_ + suffix, ignored);
        }
        return;
    }
    try {
        auto admin = open_session(parse_or_throw(postgres_admin_url_));
        // FORCE ends sessions a test left open; the server itself is thrown away after the run.
        *admin << "DROP DATABASE IF EXISTS " + postgres_name_ + " WITH (FORCE)";
    } catch (...) {
        // Left behind; the test run deletes the whole server at the end.
    }
}

}  // namespace corridor::testing
