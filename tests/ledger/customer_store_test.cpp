// Customers in the store: creation (generated and given UMA addresses and platform customer ids),
// uniqueness conflicts returned as values with nothing written, update and delete outcomes,
// list filters, keyset pagination walked to the end in both orders, and tenancy isolation.
#include "ledger/customers/customer_store.hpp"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ledger/base/uma_address.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ids.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

constexpr const char* domain = "acme.example";

new_customer individual(std::optional<std::string> platform_customer_id = std::nullopt,
                        std::optional<std::string> uma_address = std::nullopt) {
    new_customer request;
    request.platform_customer_id = std::move(platform_customer_id);
    request.customer_type = "INDIVIDUAL";
    request.kyc_status = "APPROVED";
    request.fields.uma_address = std::move(uma_address);
    request.fields.full_name = "Ada Lovelace";
    request.fields.birth_date = "1815-12-10";
    request.fields.nationality = "GB";
    request.fields.address_json =
        R"({"line1":"1 St James's Square","postalCode":"SW1Y","country":"GB"})";
    return request;
}

new_customer business(std::optional<std::string> platform_customer_id = std::nullopt) {
    new_customer request;
    request.platform_customer_id = std::move(platform_customer_id);
    request.customer_type = "BUSINESS";
    request.kyc_status = "PENDING_REVIEW";
    request.fields.business_info_json = R"({"legalName":"Analytical Engines Ltd"})";
    request.fields.beneficial_owners_json = R"([{"fullName":"Charles Babbage"}])";
    return request;
}

int customer_rows(soci::session& session) {
    int count = -1;
    session << "SELECT COUNT(*) FROM customers", soci::into(count);
    return count;
}

// "kind owner currency debits credits" of every customer account, in currency order.
std::vector<std::string> account_rows(soci::session& session) {
    std::vector<std::string> rows;
    soci::rowset<soci::row> found =
        (session.prepare << "SELECT kind, owner_id, currency, debits_posted, credits_posted FROM "
                            "ledger_accounts WHERE kind = 'CUSTOMER' ORDER BY currency");
    for (const auto& row : found) {
        rows.push_back(row.get<std::string>(0) + " " + row.get<std::string>(1) + " " +
                       row.get<std::string>(2) + " " + std::to_string(row.get<long long>(3)) + " " +
                       std::to_string(row.get<long long>(4)));
    }
    return rows;
}

std::vector<std::string> ids_of(const page<customer>& found) {
    std::vector<std::string> ids;
    for (const auto& item : found.items) ids.push_back(item.id);
    return ids;
}

struct customer_world : store_fixture {
    customer_world() : platform(make_platform(domain)), owner{platform, environment::sandbox} {}

    customer create(const new_customer& request, const tenant& who) {
        auto created = create_customer(session(), customers(), who, domain, request);
        REQUIRE(created);
        return created.value();
    }
    customer create(const new_customer& request) { return create(request, owner); }

    std::string platform;
    tenant owner;
};

// Walks every page of a listing and returns the ids in the order they came.
std::vector<std::string> walk(soci::session& session, const tenant& owner,
                              const customer_filter& filter, int limit, bool descending,
                              std::int64_t total_expected) {
    std::vector<std::string> seen;
    page_request request{limit, std::nullopt, descending};
    for (int pages = 0; pages < 1000; ++pages) {
        auto found = list_customers(session, owner, filter, request);
        CHECK(found.total_count == total_expected);
        for (const auto& id : ids_of(found)) seen.push_back(id);
        if (!found.has_more) {
            CHECK(found.next_cursor.empty());
            CHECK(found.items.size() <= static_cast<std::size_t>(limit));
            return seen;
        }
        REQUIRE(found.items.size() == static_cast<std::size_t>(limit));
        // The cursor goes through its text form, as it does through a client.
        auto after = decode_cursor(found.next_cursor);
        REQUIRE(after);
        REQUIRE(*after == found.items.back().id);
        request.after_id = after;
    }
    FAIL("more than 1000 pages");
    return seen;
}

}  // namespace

TEST_CASE("create_customer with generated address and platform customer id", "[store][customers]") {
    customer_world world;
    customer created = world.create(individual());
    CHECK(is_typed_id("Customer", created.id));
    CHECK(created.owner == world.owner);
    // The generated platform customer id is the uuid of the customer id.
    CHECK(created.platform_customer_id == created.id.substr(9));
    auto address = parse_uma_address(created.uma_address);
    REQUIRE(address);
    CHECK(address->domain == domain);
    CHECK(address->user.size() == 12);
    CHECK(address->text() == created.uma_address);
    CHECK(created.customer_type == "INDIVIDUAL");
    CHECK(created.kyc_status == "APPROVED");
    CHECK(created.full_name == "Ada Lovelace");
    CHECK(created.birth_date == "1815-12-10");
    CHECK(created.nationality == "GB");
    CHECK(created.address_json == individual().fields.address_json);
    CHECK_FALSE(created.business_info_json);
    CHECK_FALSE(created.beneficial_owners_json);
    CHECK_FALSE(created.is_deleted);
    CHECK(created.created_at_ms == testing::fixture_start_ms);
    CHECK(created.updated_at_ms == testing::fixture_start_ms);

    // Generated addresses differ customer to customer.
    customer second = world.create(individual());
    CHECK(second.uma_address != created.uma_address);
    CHECK(second.id > created.id);

    auto found = find_customer(world.session(), world.owner, created.id);
    REQUIRE(found);
    CHECK(found->uma_address == created.uma_address);
    CHECK(found->full_name == created.full_name);
}

TEST_CASE("create_customer opens one empty account per currency, a rejected one none",
          "[store][customers]") {
    customer_world world;
    new_customer request = individual("crm-1", "$ada@acme.example");
    request.account_currencies = {"USD", "EUR"};
    customer created = world.create(request);
    CHECK(account_rows(world.session()) ==
          std::vector<std::string>{"CUSTOMER " + created.id + " EUR 0 0",
                                   "CUSTOMER " + created.id + " USD 0 0"});

    request.platform_customer_id = "crm-2";  // the address is taken
    auto again = create_customer(world.session(), world.customers(), world.owner, domain, request);
    REQUIRE_FALSE(again);
    CHECK(account_rows(world.session()).size() == 2);
}

TEST_CASE("create_customer with given address and platform customer id", "[store][customers]") {
    customer_world world;
    customer created = world.create(individual("crm-0001", "$ada@acme.example"));
    CHECK(created.uma_address == "$ada@acme.example");
    CHECK(created.platform_customer_id == "crm-0001");

    customer company = world.create(business("crm-0002"));
    CHECK(company.customer_type == "BUSINESS");
    CHECK(company.kyc_status == "PENDING_REVIEW");
    CHECK(company.business_info_json == business().fields.business_info_json);
    CHECK(company.beneficial_owners_json == business().fields.beneficial_owners_json);
    CHECK_FALSE(company.full_name);
    CHECK_FALSE(company.birth_date);
    CHECK_FALSE(company.nationality);
    CHECK_FALSE(company.address_json);
}

TEST_CASE("uniqueness conflicts are values and write nothing", "[store][customers]") {
    customer_world world;
    world.create(individual("crm-1", "$ada@acme.example"));
    REQUIRE(customer_rows(world.session()) == 1);

    SECTION("the same UMA address") {
        auto again = create_customer(world.session(), world.customers(), world.owner, domain,
                                     individual("crm-2", "$ada@acme.example"));
        REQUIRE_FALSE(again);
        CHECK(again.error() == customer_error::uma_address_taken);
    }
    SECTION("the same UMA address from another platform in the same environment") {
        // Addresses are unique per environment across platforms, like the UMA domain they use.
        const tenant other{world.make_platform("other.example"), environment::sandbox};
        auto again = create_customer(world.session(), world.customers(), other, "other.example",
                                     individual("crm-1", "$ada@acme.example"));
        REQUIRE_FALSE(again);
        CHECK(again.error() == customer_error::uma_address_taken);
    }
    SECTION("the same platform customer id") {
        auto again = create_customer(world.session(), world.customers(), world.owner, domain,
                                     individual("crm-1", "$lovelace@acme.example"));
        REQUIRE_FALSE(again);
        CHECK(again.error() == customer_error::platform_customer_id_taken);
        auto generated = create_customer(world.session(), world.customers(), world.owner, domain,
                                         business("crm-1"));
        REQUIRE_FALSE(generated);
        CHECK(generated.error() == customer_error::platform_customer_id_taken);
    }
    CHECK(customer_rows(world.session()) == 1);
}

TEST_CASE("an address has one owner across both environments", "[store][customers]") {
    customer_world world;
    customer sandbox_ada = world.create(individual("crm-1", "$ada@acme.example"));
    const tenant production{world.platform, environment::production};
    // The address resolves at its domain to one customer, whichever environment holds it.
    auto taken = create_customer(world.session(), world.customers(), production, domain,
                                 individual("crm-1", "$ada@acme.example"));
    REQUIRE_FALSE(taken);
    CHECK(taken.error() == customer_error::uma_address_taken);
    customer live = world.create(individual("crm-2", "$grace@acme.example"), production);
    customer_fields change;
    change.uma_address = "$ada@acme.example";
    auto moved =
        update_customer(world.session(), world.clock, production, live.id, "INDIVIDUAL", change);
    REQUIRE_FALSE(moved);
    CHECK(moved.error() == customer_error::uma_address_taken);
    // Once the sandbox customer is deleted, production may take the address.
    REQUIRE(delete_customer(world.session(), world.clock, world.owner, sandbox_ada.id));
    REQUIRE(
        update_customer(world.session(), world.clock, production, live.id, "INDIVIDUAL", change));
}

TEST_CASE("the same platform customer id is free elsewhere", "[store][customers]") {
    customer_world world;
    world.create(individual("crm-1", "$ada@acme.example"));
    // The production environment of the same platform is a separate world for its ids.
    const tenant production{world.platform, environment::production};
    world.create(individual("crm-1", "$ada.live@acme.example"), production);
    // Platform customer ids are per platform.
    const tenant other{world.make_platform("other.example"), environment::sandbox};
    world.create(individual("crm-1", "$ada@other.example"), other);
    CHECK(customer_rows(world.session()) == 3);
}

TEST_CASE("a deleted customer frees its address and platform customer id", "[store][customers]") {
    customer_world world;
    customer first = world.create(individual("crm-1", "$ada@acme.example"));
    REQUIRE(delete_customer(world.session(), world.clock, world.owner, first.id));
    customer second = world.create(individual("crm-1", "$ada@acme.example"));
    CHECK(second.id != first.id);
    auto old = find_customer(world.session(), world.owner, first.id);
    REQUIRE(old);
    CHECK(old->is_deleted);
    CHECK(old->uma_address == "$ada@acme.example");
}

TEST_CASE("update_customer outcomes", "[store][customers]") {
    customer_world world;
    customer ada = world.create(individual("crm-1", "$ada@acme.example"));
    customer other = world.create(individual("crm-2", "$grace@acme.example"));
    world.clock.advance_ms(5000);

    SECTION("fields given change, fields absent stay") {
        customer_fields changes;
        changes.full_name = "Augusta Ada King";
        changes.uma_address = "$countess@acme.example";
        auto updated = update_customer(world.session(), world.clock, world.owner, ada.id,
                                       "INDIVIDUAL", changes);
        REQUIRE(updated);
        CHECK(updated->full_name == "Augusta Ada King");
        CHECK(updated->uma_address == "$countess@acme.example");
        CHECK(updated->birth_date == ada.birth_date);
        CHECK(updated->nationality == ada.nationality);
        CHECK(updated->address_json == ada.address_json);
        CHECK(updated->platform_customer_id == "crm-1");
        CHECK(updated->created_at_ms == ada.created_at_ms);
        CHECK(updated->updated_at_ms == testing::fixture_start_ms + 5000);
        auto reread = find_customer(world.session(), world.owner, ada.id);
        REQUIRE(reread);
        CHECK(reread->full_name == "Augusta Ada King");
        CHECK(reread->updated_at_ms == updated->updated_at_ms);
        // The old address is free again.
        world.create(individual("crm-3", "$ada@acme.example"));
    }
    SECTION("keeping one's own address is not a conflict") {
        customer_fields changes;
        changes.uma_address = "$ada@acme.example";
        auto updated = update_customer(world.session(), world.clock, world.owner, ada.id,
                                       "INDIVIDUAL", changes);
        REQUIRE(updated);
        CHECK(updated->uma_address == "$ada@acme.example");
    }
    SECTION("another customer's address is taken") {
        customer_fields changes;
        changes.uma_address = other.uma_address;
        changes.full_name = "Not Written";
        auto updated = update_customer(world.session(), world.clock, world.owner, ada.id,
                                       "INDIVIDUAL", changes);
        REQUIRE_FALSE(updated);
        CHECK(updated.error() == customer_error::uma_address_taken);
        auto unchanged = find_customer(world.session(), world.owner, ada.id);
        CHECK(unchanged->full_name == "Ada Lovelace");
        CHECK(unchanged->uma_address == "$ada@acme.example");
        CHECK(unchanged->updated_at_ms == testing::fixture_start_ms);
    }
    SECTION("the type must match") {
        auto updated =
            update_customer(world.session(), world.clock, world.owner, ada.id, "BUSINESS", {});
        REQUIRE_FALSE(updated);
        CHECK(updated.error() == customer_error::customer_type_mismatch);
    }
    SECTION("unknown and other tenants' customers are not found") {
        customer_fields changes;
        changes.full_name = "Intruder";
        for (const tenant& who :
             {tenant{world.platform, environment::production},
              tenant{world.make_platform("other.example"), environment::sandbox}}) {
            auto updated =
                update_customer(world.session(), world.clock, who, ada.id, "INDIVIDUAL", changes);
            REQUIRE_FALSE(updated);
            CHECK(updated.error() == customer_error::not_found);
        }
        auto unknown =
            update_customer(world.session(), world.clock, world.owner,
                            "Customer:0199dcb0-d3bb-7000-8000-000000000000", "INDIVIDUAL", changes);
        REQUIRE_FALSE(unknown);
        CHECK(unknown.error() == customer_error::not_found);
        CHECK(find_customer(world.session(), world.owner, ada.id)->full_name == "Ada Lovelace");
    }
    SECTION("a deleted customer cannot be updated") {
        REQUIRE(delete_customer(world.session(), world.clock, world.owner, ada.id));
        auto updated =
            update_customer(world.session(), world.clock, world.owner, ada.id, "INDIVIDUAL", {});
        REQUIRE_FALSE(updated);
        CHECK(updated.error() == customer_error::deleted);
    }
    SECTION("the update time never goes backwards") {
        world.clock.set_ms(testing::fixture_start_ms - 100000);
        auto updated =
            update_customer(world.session(), world.clock, world.owner, ada.id, "INDIVIDUAL", {});
        REQUIRE(updated);
        CHECK(updated->updated_at_ms == testing::fixture_start_ms);
    }
}

TEST_CASE("delete_customer outcomes", "[store][customers]") {
    customer_world world;
    customer ada = world.create(individual("crm-1"));
    world.clock.advance_ms(700);

    auto other_env = delete_customer(world.session(), world.clock,
                                     {world.platform, environment::production}, ada.id);
    REQUIRE_FALSE(other_env);
    CHECK(other_env.error() == customer_error::not_found);

    auto deleted = delete_customer(world.session(), world.clock, world.owner, ada.id);
    REQUIRE(deleted);
    CHECK(deleted->id == ada.id);
    CHECK(deleted->is_deleted);
    CHECK(deleted->updated_at_ms == testing::fixture_start_ms + 700);
    CHECK(deleted->full_name == ada.full_name);

    auto again = delete_customer(world.session(), world.clock, world.owner, ada.id);
    REQUIRE_FALSE(again);
    CHECK(again.error() == customer_error::deleted);

    auto unknown = delete_customer(world.session(), world.clock, world.owner, "Customer:x");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error() == customer_error::not_found);
}

TEST_CASE("list_customers filters", "[store][customers]") {
    customer_world world;
    const std::int64_t t0 = testing::fixture_start_ms;
    customer a = world.create(individual("crm-a", "$a@acme.example"));  // t0
    world.clock.advance_ms(10);
    customer b = world.create(business("crm-b"));  // t0+10
    world.clock.advance_ms(10);
    customer c = world.create(individual("crm-c"));  // t0+20
    world.clock.advance_ms(10);
    customer d = world.create(business("crm-d"));  // t0+30
    world.clock.advance_ms(10);
    // c is updated at t0+40, d deleted at t0+40.
    customer_fields rename;
    rename.full_name = "C";
    REQUIRE(update_customer(world.session(), world.clock, world.owner, c.id, "INDIVIDUAL", rename));
    REQUIRE(delete_customer(world.session(), world.clock, world.owner, d.id));
    // Noise in other tenants.
    world.create(individual("crm-a"), {world.platform, environment::production});
    world.create(individual("crm-a"), {world.make_platform("other.example"), environment::sandbox});

    auto list = [&](const customer_filter& filter) {
        return ids_of(list_customers(world.session(), world.owner, filter, {}));
    };
    using ids = std::vector<std::string>;

    CHECK(list({}) == ids{c.id, b.id, a.id});
    CHECK(list_customers(world.session(), world.owner, {}, {}).total_count == 3);
    customer_filter with_deleted;
    with_deleted.include_deleted = true;
    CHECK(list(with_deleted) == ids{d.id, c.id, b.id, a.id});

    customer_filter by_type;
    by_type.customer_type = "BUSINESS";
    CHECK(list(by_type) == ids{b.id});
    by_type.include_deleted = true;
    CHECK(list(by_type) == ids{d.id, b.id});

    customer_filter by_platform_id;
    by_platform_id.platform_customer_id = "crm-c";
    CHECK(list(by_platform_id) == ids{c.id});
    by_platform_id.platform_customer_id = "crm-d";
    CHECK(list(by_platform_id).empty());
    by_platform_id.platform_customer_id = "CRM-C";
    CHECK(list(by_platform_id).empty());

    customer_filter by_address;
    by_address.uma_address = "$a@acme.example";
    CHECK(list(by_address) == ids{a.id});

    customer_filter created;
    created.created_after_ms = t0 + 10;
    created.created_before_ms = t0 + 20;
    CHECK(list(created) == ids{c.id, b.id});  // both bounds inclusive
    created.created_after_ms = t0 + 11;
    CHECK(list(created) == ids{c.id});
    created.created_before_ms = t0 + 19;
    CHECK(list(created).empty());

    customer_filter updated;
    updated.updated_after_ms = t0 + 40;
    CHECK(list(updated) == ids{c.id});
    updated.include_deleted = true;
    CHECK(list(updated) == ids{d.id, c.id});
    customer_filter before;
    before.updated_before_ms = t0 + 10;
    CHECK(list(before) == ids{b.id, a.id});

    customer_filter combined;
    combined.customer_type = "INDIVIDUAL";
    combined.created_before_ms = t0 + 5;
    auto found = list_customers(world.session(), world.owner, combined, {});
    CHECK(ids_of(found) == ids{a.id});
    CHECK(found.total_count == 1);
    CHECK_FALSE(found.has_more);
}

TEST_CASE("keyset pagination walks every page without duplicate or gap", "[store][customers]") {
    customer_world world;
    // 57 customers, several per millisecond, every fifth a business, every seventh deleted.
    std::vector<std::string> all, live, individuals;
    for (int i = 0; i < 57; ++i) {
        customer made = world.create(i % 5 == 0 ? business() : individual());
        all.push_back(made.id);
        if (i % 7 == 3) {
            REQUIRE(delete_customer(world.session(), world.clock, world.owner, made.id));
        } else {
            live.push_back(made.id);
            if (i % 5 != 0) individuals.push_back(made.id);
        }
        if (i % 3 == 0) world.clock.advance_ms(1);
    }
    // Rows of other tenants interleave in id order and must not leak into the walk.
    for (int i = 0; i < 9; ++i) {
        world.create(individual(), {world.platform, environment::production});
    }
    REQUIRE(std::is_sorted(all.begin(), all.end()));

    for (bool descending : {true, false}) {
        for (int limit : {1, 7, 8, 56, 57, 100}) {
            INFO("descending " << descending << ", limit " << limit);
            auto expect = [&](std::vector<std::string> ids) {
                if (descending) std::reverse(ids.begin(), ids.end());
                return ids;
            };
            CHECK(walk(world.session(), world.owner, {}, limit, descending, live.size()) ==
                  expect(live));
            customer_filter with_deleted;
            with_deleted.include_deleted = true;
            CHECK(walk(world.session(), world.owner, with_deleted, limit, descending, all.size()) ==
                  expect(all));
            customer_filter by_type;
            by_type.customer_type = "INDIVIDUAL";
            CHECK(walk(world.session(), world.owner, by_type, limit, descending,
                       individuals.size()) == expect(individuals));
        }
    }
}

TEST_CASE("a page of exactly the remaining rows has no next page", "[store][customers]") {
    customer_world world;
    for (int i = 0; i < 16; ++i) world.create(individual());
    auto first = list_customers(world.session(), world.owner, {}, {8, std::nullopt, true});
    CHECK(first.items.size() == 8);
    CHECK(first.has_more);
    auto second = list_customers(world.session(), world.owner, {},
                                 {8, decode_cursor(first.next_cursor), true});
    CHECK(second.items.size() == 8);
    CHECK_FALSE(second.has_more);
    CHECK(second.next_cursor.empty());
    auto past = list_customers(world.session(), world.owner, {}, {8, second.items.back().id, true});
    CHECK(past.items.empty());
    CHECK_FALSE(past.has_more);
    CHECK(past.total_count == 16);
}

TEST_CASE("a walk stays consistent while rows are added and deleted", "[store][customers]") {
    customer_world world;
    std::vector<std::string> made;
    for (int i = 0; i < 20; ++i) made.push_back(world.create(individual()).id);

    // Ascending: rows created during the walk come after the cursor and are seen; a row deleted
    // before the walk reaches it is skipped; nothing is seen twice.
    std::vector<std::string> seen;
    auto first = list_customers(world.session(), world.owner, {}, {5, std::nullopt, false});
    for (const auto& id : ids_of(first)) seen.push_back(id);
    REQUIRE(delete_customer(world.session(), world.clock, world.owner, made[12]));
    world.clock.advance_ms(1);
    std::string late = world.create(individual()).id;
    page_request request{5, decode_cursor(first.next_cursor), false};
    while (true) {
        auto found = list_customers(world.session(), world.owner, {}, request);
        for (const auto& id : ids_of(found)) seen.push_back(id);
        if (!found.has_more) break;
        request.after_id = decode_cursor(found.next_cursor);
    }
    std::vector<std::string> expected = made;
    expected.erase(expected.begin() + 12);
    expected.push_back(late);
    CHECK(seen == expected);
}

TEST_CASE("customers are invisible to other tenants", "[store][customers]") {
    customer_world world;
    customer ada = world.create(individual("crm-1"));
    const tenant production{world.platform, environment::production};
    const tenant other{world.make_platform("other.example"), environment::sandbox};
    for (const tenant& who : {production, other}) {
        CHECK_FALSE(find_customer(world.session(), who, ada.id));
        auto listed = list_customers(world.session(), who, {}, {});
        CHECK(listed.items.empty());
        CHECK(listed.total_count == 0);
        customer_filter by_id;
        by_id.platform_customer_id = "crm-1";
        by_id.include_deleted = true;
        CHECK(list_customers(world.session(), who, by_id, {}).items.empty());
        // A cursor naming another tenant's row reveals nothing either.
        CHECK(list_customers(world.session(), who, {}, {10, ada.id, true}).items.empty());
    }
    CHECK(find_customer(world.session(), world.owner, ada.id));
}

namespace {

// Returns once a creator thread is blocked on another connection's open transaction: on
// PostgreSQL when a backend waits on a lock (bounded: 10 s); SQLite shows no such wait, so a
// fixed pause.
void wait_until_blocked(customer_world& world) {
    if (world.database.backend() != database_backend::postgresql) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return;
    }
    auto watcher = world.database.open_another();
    for (int i = 0; i < 1000; ++i) {
        int waiting = 0;
        *watcher << "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock'",
            soci::into(waiting);
        if (waiting > 0) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

// Inserts a customer row on `session` the way another writer would, outside the store's API (in
// the tests below its transaction is left open, so the row is uncommitted).
void insert_customer_row(soci::session& session, const std::string& platform, const std::string& id,
                         const std::string& platform_customer_id, const std::string& address) {
    session
        << "INSERT INTO customers (id, platform_id, environment, platform_customer_id, "
           "customer_type, uma_address, kyc_status, is_deleted, created_at_ms, "
           "updated_at_ms) VALUES (:i, :p, 'sandbox', :c, 'INDIVIDUAL', :u, 'APPROVED', 0, 0, 0)",
        soci::use(id), soci::use(platform), soci::use(platform_customer_id), soci::use(address);
}

// Another connection inserts a conflicting customer and holds its transaction open while we
// create ours. Our create cannot see the uncommitted row, so its own checks pass and the unique
// index decides: on PostgreSQL the insert waits for the other transaction and then fails; on
// SQLite our transaction cannot start until the other ends. Either way the outcome must name the
// field the client has to change.
customer_error create_against_uncommitted(customer_world& world, const std::string& other_id,
                                          const std::string& other_address,
                                          const new_customer& request) {
    auto other = world.database.open_another();
    write_transaction holding(*other);
    insert_customer_row(*other, world.platform, "Customer:0199dcb0-d3bb-7000-8000-000000000000",
                        other_id, other_address);
    std::atomic<bool> done{false};
    std::optional<result<customer, customer_error>> outcome;
    std::thread creator([&] {
        outcome.emplace(
            create_customer(world.session(), world.customers(), world.owner, domain, request));
        done = true;
    });
    wait_until_blocked(world);
    CHECK_FALSE(done);
    holding.commit();
    creator.join();
    REQUIRE(outcome.has_value());
    REQUIRE_FALSE(*outcome);
    CHECK(customer_rows(world.session()) == 1);
    return outcome->error();
}

}  // namespace

TEST_CASE("a concurrent insert of the same address is an address conflict", "[store][customers]") {
    customer_world world;
    CHECK(create_against_uncommitted(world, "crm-other", "$ada@acme.example",
                                     individual("crm-1", "$ada@acme.example")) ==
          customer_error::uma_address_taken);
}

TEST_CASE(
    "a concurrent insert of the same platform customer id is a platform customer id "
    "conflict",
    "[store][customers]") {
    customer_world world;
    CHECK(create_against_uncommitted(world, "crm-1", "$other@acme.example",
                                     individual("crm-1", "$ada@acme.example")) ==
          customer_error::platform_customer_id_taken);
}

namespace {

std::vector<std::string> outcome_names(
    const std::vector<result<std::string, customer_error>>& got) {
    std::vector<std::string> names;
    for (const auto& outcome : got) {
        if (outcome) {
            names.push_back("created");
        } else if (outcome.error() == customer_error::uma_address_taken) {
            names.push_back("address taken");
        } else if (outcome.error() == customer_error::platform_customer_id_taken) {
            names.push_back("id taken");
        } else {
            names.push_back("other");
        }
    }
    return names;
}

}  // namespace

TEST_CASE("create_customers decides each row as create_customer would, in order",
          "[store][customers]") {
    customer_world world;
    world.create(individual("crm-db", "$db@acme.example"));
    std::vector<new_customer> batch = {
        individual("crm-1", "$one@acme.example"),    // created
        individual("crm-2", "$db@acme.example"),     // address held in the database
        individual("crm-db", "$two@acme.example"),   // platformCustomerId held in the database
        individual("crm-3", "$one@acme.example"),    // address of an earlier row of the batch
        individual("crm-1", "$three@acme.example"),  // platformCustomerId of an earlier row
        individual("crm-db", "$four@acme.example"),  // loses, so its address stays free...
        individual("crm-4", "$four@acme.example"),   // ...for this row
        business(),                                  // generated address and platformCustomerId
    };
    batch[0].account_currencies = {"USD", "EUR"};
    batch[6].account_currencies = {"BRL"};
    auto got = create_customers(world.session(), world.customers(), world.owner, domain, batch);
    CHECK(outcome_names(got) == std::vector<std::string>{"created", "address taken", "id taken",
                                                         "address taken", "id taken", "id taken",
                                                         "created", "created"});
    CHECK(customer_rows(world.session()) == 4);

    // What is stored is what create_customer stores.
    auto one = find_customer(world.session(), world.owner, got[0].value());
    REQUIRE(one);
    CHECK(one->platform_customer_id == "crm-1");
    CHECK(one->uma_address == "$one@acme.example");
    CHECK(one->customer_type == "INDIVIDUAL");
    CHECK(one->kyc_status == "APPROVED");
    CHECK(one->full_name == "Ada Lovelace");
    CHECK(one->birth_date == "1815-12-10");
    CHECK(one->nationality == "GB");
    CHECK(one->address_json == individual().fields.address_json);
    CHECK_FALSE(one->business_info_json);
    CHECK_FALSE(one->is_deleted);
    CHECK(one->created_at_ms == testing::fixture_start_ms);
    CHECK(one->updated_at_ms == testing::fixture_start_ms);
    auto company = find_customer(world.session(), world.owner, got[7].value());
    REQUIRE(company);
    CHECK(company->platform_customer_id == company->id.substr(9));
    auto address = parse_uma_address(company->uma_address);
    REQUIRE(address);
    CHECK(address->domain == domain);
    CHECK(address->user.size() == 12);
    CHECK(company->business_info_json == business().fields.business_info_json);
    CHECK(company->beneficial_owners_json == business().fields.beneficial_owners_json);
    CHECK_FALSE(company->full_name);
    CHECK_FALSE(company->nationality);

    // One empty account per currency of the created rows, none for a refused one.
    CHECK(account_rows(world.session()) ==
          std::vector<std::string>{"CUSTOMER " + got[6].value() + " BRL 0 0",
                                   "CUSTOMER " + got[0].value() + " EUR 0 0",
                                   "CUSTOMER " + got[0].value() + " USD 0 0"});
    // The rows are found by the lookups the next batch makes.
    auto again = create_customers(
        world.session(), world.customers(), world.owner, domain,
        {individual("crm-5", "$four@acme.example"), individual("crm-4", "$five@acme.example")});
    CHECK(outcome_names(again) == std::vector<std::string>{"address taken", "id taken"});
    CHECK(customer_rows(world.session()) == 4);
}

TEST_CASE("create_customers inserts batches larger than one statement's chunk",
          "[store][customers]") {
    customer_world world;
    std::vector<new_customer> batch;
    for (int i = 0; i < 1201; ++i) {
        batch.push_back(
            individual("crm-" + std::to_string(i), "$user" + std::to_string(i) + "@acme.example"));
        batch.back().account_currencies = {"USD"};
    }
    batch.push_back(individual("crm-7", "$late@acme.example"));  // an id from the first chunk
    auto got = create_customers(world.session(), world.customers(), world.owner, domain, batch);
    REQUIRE(got.size() == batch.size());
    for (std::size_t i = 0; i < 1201; ++i) CHECK(got[i]);
    REQUIRE_FALSE(got.back());
    CHECK(got.back().error() == customer_error::platform_customer_id_taken);
    CHECK(customer_rows(world.session()) == 1201);
    CHECK(account_rows(world.session()).size() == 1201);
    auto last = find_customer(world.session(), world.owner, got[1200].value());
    REQUIRE(last);
    CHECK(last->uma_address == "$user1200@acme.example");
}

// The reference of every customer account, in the order the accounts were opened.
std::vector<std::string> account_references(soci::session& session) {
    std::vector<std::string> references;
    soci::rowset<std::string> found = (session.prepare << "SELECT reference FROM ledger_accounts "
                                                          "WHERE kind = 'CUSTOMER' ORDER BY id");
    for (const auto& reference : found) references.push_back(reference);
    return references;
}

bool is_account_reference(const std::string& reference) {
    return reference.size() == 16 && reference.starts_with("CR") &&
           std::all_of(reference.begin() + 2, reference.end(),
                       [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '2' && c <= '7'); });
}

TEST_CASE("accounts of a batch get references of the usual form, close together in the index",
          "[store][customers]") {
    customer_world world;
    std::vector<new_customer> batch;
    for (int i = 0; i < 300; ++i) {
        batch.push_back(individual("crm-" + std::to_string(i)));
        batch.back().account_currencies = {"USD", "EUR", "BRL", "MXN"};
    }
    auto got = create_customers(world.session(), world.customers(), world.owner, domain, batch);
    REQUIRE(got.size() == batch.size());
    auto references = account_references(world.session());
    REQUIRE(references.size() == 1200);
    std::set<std::string> distinct(references.begin(), references.end());
    CHECK(distinct.size() == references.size());
    for (const auto& reference : references) CHECK(is_account_reference(reference));
    // Groups of 500 accounts share their first 8 characters and no group another's.
    std::set<std::string> prefixes;
    for (std::size_t group = 0; group * 500 < references.size(); ++group) {
        std::string prefix = references[group * 500].substr(0, 8);
        for (std::size_t i = group * 500; i < std::min(references.size(), group * 500 + 500); ++i) {
            CHECK(references[i].substr(0, 8) == prefix);
        }
        prefixes.insert(prefix);
    }
    CHECK(prefixes.size() == 3);
}

TEST_CASE("a batch that loses a race to another writer is redone row by row",
          "[store][customers]") {
    customer_world world;
    // Another connection holds an uncommitted customer with an address of the batch: on
    // PostgreSQL the batch's lookups miss it and its INSERT fails once the other commits; on
    // SQLite the batch waits for the other's write lock and its lookups see the row.
    auto other = world.database.open_another();
    write_transaction holding(*other);
    insert_customer_row(*other, world.platform, "Customer:0199dcb0-d3bb-7000-8000-000000000000",
                        "crm-other", "$ada@acme.example");
    std::vector<new_customer> batch = {individual("crm-1", "$one@acme.example"),
                                       individual("crm-2", "$ada@acme.example"),
                                       individual("crm-3", "$three@acme.example")};
    for (auto& request : batch) request.account_currencies = {"USD"};
    std::atomic<bool> done{false};
    std::optional<std::vector<result<std::string, customer_error>>> outcome;
    std::thread creator([&] {
        outcome.emplace(
            create_customers(world.session(), world.customers(), world.owner, domain, batch));
        done = true;
    });
    wait_until_blocked(world);
    CHECK_FALSE(done);
    holding.commit();
    creator.join();
    REQUIRE(outcome.has_value());
    CHECK(outcome_names(*outcome) ==
          std::vector<std::string>{"created", "address taken", "created"});
    CHECK(customer_rows(world.session()) == 3);
    CHECK(account_rows(world.session()).size() == 2);
}

TEST_CASE("create_customers inside the caller's transaction commits and rolls back with it",
          "[store][customers]") {
    customer_world world;
    std::vector<new_customer> batch = {
        individual("crm-1", "$one@acme.example"), individual("crm-2", "$one@acme.example"),
        individual("crm-1", "$two@acme.example"), individual("crm-3", "$three@acme.example")};
    const std::vector<std::string> expected{"created", "address taken", "id taken", "created"};
    {
        write_transaction transaction(world.session());
        auto got = create_customers(world.session(), world.customers(), world.owner, domain, batch);
        CHECK(outcome_names(got) == expected);
    }  // rolled back
    CHECK(customer_rows(world.session()) == 0);
    CHECK(account_rows(world.session()).empty());
    write_transaction transaction(world.session());
    auto got = create_customers(world.session(), world.customers(), world.owner, domain, batch);
    CHECK(outcome_names(got) == expected);
    transaction.commit();
    CHECK(customer_rows(world.session()) == 2);
}

// A bulk import on PostgreSQL inserts a batch with no lookups first while none of its keys is
// stored: where that works, the outcomes are create_customers'; where a stored key stops it,
// nothing of the batch stays and create_customers decides it, with the same outcomes as ever.
TEST_CASE("a batch inserted at once decides its rows as create_customers would, or not at all",
          "[store][customers]") {
    customer_world world;
    world.create(individual("crm-db", "$db@acme.example"));
    const std::vector<new_customer> clean = {
        individual("crm-1", "$one@acme.example"),  // created
        individual("crm-2", "$one@acme.example"),  // address of an earlier row of the batch
        individual("crm-1", "$two@acme.example"),  // platformCustomerId of an earlier row
        business(),                                // generated address and platformCustomerId
    };
    write_transaction transaction(world.session());
    auto got =
        insert_customers_at_once(world.session(), world.customers(), world.owner, domain, clean);
    REQUIRE(got.has_value());
    CHECK(outcome_names(*got) ==
          std::vector<std::string>{"created", "address taken", "id taken", "created"});
    CHECK(customer_rows(world.session()) == 3);
    auto accounts = account_rows(world.session()).size();
    auto one = find_customer(world.session(), world.owner, (*got)[0].value());
    REQUIRE(one);
    CHECK(one->uma_address == "$one@acme.example");
    CHECK(one->created_at_ms == testing::fixture_start_ms);

    // A key held in the database, by a customer stored before or by a row of the clean batch:
    // nothing of the batch goes in, and the caller's transaction goes on.
    const std::vector<new_customer> taken = {individual("crm-3", "$db@acme.example"),
                                             individual("crm-db", "$three@acme.example"),
                                             individual("crm-1", "$four@acme.example")};
    int stored = 3;
    for (std::size_t i = 0; i < taken.size(); ++i) {
        std::string free = "free" + std::to_string(i);
        std::vector<new_customer> batch = {individual("crm-" + free, "$" + free + "@acme.example"),
                                           taken[i]};
        CHECK_FALSE(insert_customers_at_once(world.session(), world.customers(), world.owner,
                                             domain, batch));
        CHECK(customer_rows(world.session()) == stored);
        CHECK(account_rows(world.session()).size() == accounts);
        // create_customers decides the same batch: the free row is created, the other refused.
        auto decided =
            create_customers(world.session(), world.customers(), world.owner, domain, batch);
        CHECK(outcome_names(decided) ==
              std::vector<std::string>{"created", i == 0 ? "address taken" : "id taken"});
        CHECK(customer_rows(world.session()) == ++stored);
        accounts = account_rows(world.session()).size();
    }
    transaction.commit();
    CHECK(customer_rows(world.session()) == stored);
}

TEST_CASE("shadowed addresses are found where the import must look them up", "[store][customers]") {
    customer_world world;
    auto kept = world.create(individual("crm-1", "$one@acme.example"));
    CHECK_FALSE(shadowed_addresses_exist(world.session()));
    world.session() << "UPDATE customers SET uma_address_shadowed = 1 WHERE id = :i",
        soci::use(kept.id);
    CHECK(shadowed_addresses_exist(world.session()));
    world.session() << "UPDATE customers SET is_deleted = 1 WHERE id = :i", soci::use(kept.id);
    CHECK_FALSE(shadowed_addresses_exist(world.session()));  // a deleted customer holds nothing
}

// Another writer's uncommitted customer holds an address of the batch: the batch inserted at once
// waits for it (PostgreSQL: on the unique index; SQLite: for the write lock), then gives way with
// nothing of it stored, and create_customers decides it as ever.
TEST_CASE("a batch inserted at once that meets another writer's key gives way whole",
          "[store][customers]") {
    customer_world world;
    auto other = world.database.open_another();
    write_transaction holding(*other);
    insert_customer_row(*other, world.platform, "Customer:0199dcb0-d3bb-7000-8000-000000000001",
                        "crm-other", "$ada@acme.example");
    std::vector<new_customer> batch = {individual("crm-1", "$one@acme.example"),
                                       individual("crm-2", "$ada@acme.example")};
    for (auto& request : batch) request.account_currencies = {"USD"};
    std::atomic<bool> done{false};
    std::optional<std::vector<result<std::string, customer_error>>> outcome{
        std::vector<result<std::string, customer_error>>{}};
    std::thread creator([&] {
        outcome = insert_customers_at_once(world.session(), world.customers(), world.owner, domain,
                                           batch);
        done = true;
    });
    wait_until_blocked(world);
    CHECK_FALSE(done);
    holding.commit();
    creator.join();
    CHECK_FALSE(outcome.has_value());
    CHECK(customer_rows(world.session()) == 1);
    CHECK(account_rows(world.session()).empty());
    auto decided = create_customers(world.session(), world.customers(), world.owner, domain, batch);
    CHECK(outcome_names(decided) == std::vector<std::string>{"created", "address taken"});
}
