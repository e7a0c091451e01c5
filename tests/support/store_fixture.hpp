#pragma once
// What a store test needs besides its database: a clock that moves only when told, a seeded random
// source (a failure replays exactly), the id generator on both, and helpers that create the rows
// most tests start from.
#include <cstdint>
#include <string>

#include "ledger/base/clock.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/tenant.hpp"
#include "tests/support/test_database.hpp"

namespace corridor::testing {

// 2025-10-13T00:00:00Z, the API version's date.
constexpr std::int64_t fixture_start_ms = 1760313600000;

struct store_fixture {
    explicit store_fixture(std::uint64_t seed = 42, schema initial = schema::migrated)
        : random(seed), ids(clock, random), database(initial) {}

    soci::session& session() { return database.session(); }
    platform_services platforms() { return {ids, random, clock}; }
    customer_services customers() { return {ids, random, clock}; }

    // Creates a platform with the given UMA domain; fails the test when it cannot.
    std::string make_platform(const std::string& uma_domain, const std::string& name = "Acme");

    manual_clock clock{fixture_start_ms};
    seeded_random random;
    id_generator ids;
    test_database database;
};

}  // namespace corridor::testing
