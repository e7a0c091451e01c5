// External accounts and bank links in the store: creation, duplicates per owner, the single default
// UMA deposit account, tenancy, lists, the screening that turns accounts ACTIVE with their event
// (driven by the manual clock), and the bank-link tokens: expiry, reuse, the public token.
#include "ledger/customers/external_account_store.hpp"

#include <atomic>
#include <boost/json.hpp>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "ledger/customers/bank_link_store.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/event_payloads.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {
namespace json = boost::json;

validated_details us_account(const std::string& number, const std::string& routing = "021000021") {
    auto info = json::parse(
        R"({"accountType":"US_ACCOUNT","accountNumber":")" + number + R"(","routingNumber":")" +
        routing +
        R"(","accountCategory":"CHECKING","beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Ada Lovelace","birthDate":"1985-12-10","nationality":"GB"}})");
    auto details = validate_account_details(info, "USD", corridor::testing::fixture_start_ms);
    REQUIRE(details.ok());
    return details.value();
}

validated_details spark_wallet() {
    auto info = json::parse(
        R"({"accountType":"SPARK_WALLET","address":"spark1pgssy7d7vel0nh9m4326qc54e6rskpczn07dktww9rv4nu5ptvt0s9uc489gg2"})");
    auto details = validate_account_details(info, "BTC", corridor::testing::fixture_start_ms);
    REQUIRE(details.ok());
    return details.value();
}

struct accounts_fixture : store_fixture {
    accounts_fixture() {
        platform_id = make_platform("acme.example");
        owner = tenant{platform_id, environment::sandbox};
        customer_id = make_customer(owner);
    }

    std::string make_customer(const tenant& who) {
        new_customer request;
        request.customer_type = "INDIVIDUAL";
        request.kyc_status = "APPROVED";
        request.fields.full_name = "Ada Lovelace";
        auto created = create_customer(session(), customers(), who, "acme.example", request);
        REQUIRE(created.ok());
        return created->id;
    }

    external_account_services services() { return {ids, clock}; }
    bank_link_services links() { return {ids, random, clock}; }

    result<external_account, external_account_error> create(std::optional<std::string> customer,
                                                            validated_details details,
                                                            bool is_default = false,
                                                            const std::string& currency = "USD") {
        new_external_account request;
        request.customer_id = std::move(customer);
        request.currency = currency;
        request.details = std::move(details);
        request.default_uma_deposit = is_default;
        request.screening_delay_ms = 1000;
        return create_external_account(session(), services(), owner, request);
    }

    int events() {
        int count = 0;
        session() << "SELECT COUNT(*) FROM outbox_events WHERE type = 'ACCOUNT_STATUS'",
            soci::into(count);
        return count;
    }

    std::string platform_id;
    tenant owner;
    std::string customer_id;
};

}  // namespace

TEST_CASE("external accounts are created PENDING and found only by their tenant",
          "[store][external_accounts]") {
    accounts_fixture fx;
    auto created = fx.create(fx.customer_id, us_account("123456789"));
    REQUIRE(created.ok());
    CHECK(created->status == "PENDING");
    CHECK(created->beneficiary_verification_status == "PENDING");
    CHECK(created->customer_id == fx.customer_id);
    CHECK(created->screening_due_at_ms == corridor::testing::fixture_start_ms + 1000);
    CHECK(is_typed_id("ExternalAccount", created->id));
    auto found = find_external_account(fx.session(), fx.owner, created->id);
    REQUIRE(found);
    CHECK(found->identity == "US_ACCOUNT|021000021/123456789");
    CHECK_FALSE(find_external_account(fx.session(), tenant{fx.platform_id, environment::production},
                                      created->id));
    auto other = fx.make_platform("other.example", "Other");
    CHECK_FALSE(
        find_external_account(fx.session(), tenant{other, environment::sandbox}, created->id));

    auto rendered = render_external_account(*found);
    CHECK(rendered.at("status") == "PENDING");
    CHECK(rendered.at("customerId") == json::value(fx.customer_id));
    CHECK(rendered.at("accountInfo").at("accountNumber") == "123456789");
    CHECK(rendered.at("beneficiary").at("fullName") == "Ada Lovelace");
    CHECK(rendered.at("defaultUmaDepositAccount") == false);

    auto wallet = fx.create(std::nullopt, spark_wallet(), false, "BTC");
    REQUIRE(wallet.ok());
    CHECK(wallet->beneficiary_verification_status == "UNSUPPORTED");
    CHECK(render_external_account(wallet.value()).at("customerId").is_null());
}

TEST_CASE("the same destination twice for one owner is a duplicate; for another owner it is not",
          "[store][external_accounts]") {
    accounts_fixture fx;
    REQUIRE(fx.create(fx.customer_id, us_account("123456789")).ok());
    auto again = fx.create(fx.customer_id, us_account("123456789"));
    REQUIRE_FALSE(again.ok());
    CHECK(again.error() == external_account_error::duplicate);
    CHECK(fx.create(fx.customer_id, us_account("123456789", "011000015")).ok());  // another bank
    CHECK(fx.create(fx.make_customer(fx.owner), us_account("123456789")).ok());
    CHECK(fx.create(std::nullopt, us_account("123456789")).ok());
    CHECK(fx.create(std::nullopt, us_account("123456789")).error() ==
          external_account_error::duplicate);
    int rows = 0;
    fx.session() << "SELECT COUNT(*) FROM external_accounts", soci::into(rows);
    CHECK(rows == 4);
}

TEST_CASE("unknown and deleted customers cannot own external accounts",
          "[store][external_accounts]") {
    accounts_fixture fx;
    CHECK(fx.create(std::string("Customer:0190d9d0-0000-7000-8000-000000000000"), us_account("1"))
              .error() == external_account_error::customer_not_found);
    REQUIRE(delete_customer(fx.session(), fx.clock, fx.owner, fx.customer_id).ok());
    CHECK(fx.create(fx.customer_id, us_account("1")).error() ==
          external_account_error::customer_deleted);
}

TEST_CASE("one default UMA deposit account per customer: a new default replaces the old",
          "[store][external_accounts]") {
    accounts_fixture fx;
    auto first = fx.create(fx.customer_id, us_account("111"), true);
    REQUIRE(first.ok());
    CHECK(first->default_uma_deposit);
    fx.clock.advance_ms(5);
    auto second = fx.create(fx.customer_id, us_account("222"), true);
    REQUIRE(second.ok());
    CHECK(second->default_uma_deposit);
    auto reread = find_external_account(fx.session(), fx.owner, first->id);
    CHECK_FALSE(reread->default_uma_deposit);
    CHECK(reread->updated_at_ms == corridor::testing::fixture_start_ms + 5);
    // Another customer's default is untouched.
    auto other = fx.create(fx.make_customer(fx.owner), us_account("333"), true);
    REQUIRE(other.ok());
    CHECK(find_external_account(fx.session(), fx.owner, second->id)->default_uma_deposit);

    // The database itself refuses a second default, whatever the code above it does.
    CHECK_THROWS_AS(
        (fx.session() << "UPDATE external_accounts SET default_uma_deposit = 1 WHERE id = :i",
         soci::use(first->id)),
        soci::soci_error);
}

TEST_CASE("lists separate customers' and platform accounts, filter and page",
          "[store][external_accounts]") {
    accounts_fixture fx;
    auto second_customer = fx.make_customer(fx.owner);
    for (int i = 0; i < 5; ++i)
        REQUIRE(fx.create(fx.customer_id, us_account("10" + std::to_string(i))).ok());
    REQUIRE(fx.create(second_customer, us_account("200")).ok());
    REQUIRE(fx.create(fx.customer_id, spark_wallet(), false, "BTC").ok());
    REQUIRE(fx.create(std::nullopt, us_account("300")).ok());

    auto all =
        list_external_accounts(fx.session(), fx.owner, {}, page_request{100, std::nullopt, true});
    CHECK(all.total_count == 7);
    external_account_filter mine;
    mine.customer_id = fx.customer_id;
    CHECK(list_external_accounts(fx.session(), fx.owner, mine, page_request{}).total_count == 6);
    mine.currency = "BTC";
    CHECK(list_external_accounts(fx.session(), fx.owner, mine, page_request{}).total_count == 1);
    external_account_filter platform;
    platform.platform_owned = true;
    auto platform_page = list_external_accounts(fx.session(), fx.owner, platform, page_request{});
    REQUIRE(platform_page.items.size() == 1);
    CHECK_FALSE(platform_page.items[0].customer_id);

    page_request request{3, std::nullopt, true};
    std::vector<std::string> seen;
    for (int pages = 0; pages < 10; ++pages) {
        auto found = list_external_accounts(fx.session(), fx.owner, {}, request);
        CHECK(found.total_count == 7);
        for (const auto& item : found.items) seen.push_back(item.id);
        if (!found.has_more) break;
        request.after_id = decode_cursor(found.next_cursor);
    }
    CHECK(seen.size() == 7);
    CHECK(std::is_sorted(seen.rbegin(), seen.rend()));
    CHECK(list_external_accounts(fx.session(), tenant{fx.platform_id, environment::production}, {},
                                 page_request{})
              .total_count == 0);
}

TEST_CASE("screening turns due accounts ACTIVE once, with an ACCOUNT_STATUS event",
          "[store][external_accounts]") {
    accounts_fixture fx;
    auto account = fx.create(fx.customer_id, us_account("123456789"));
    auto partial = fx.create(fx.customer_id, us_account("555103"));
    auto wallet = fx.create(fx.customer_id, spark_wallet(), false, "BTC");
    REQUIRE((account.ok() && partial.ok() && wallet.ok()));

    CHECK(screen_due_external_accounts(fx.session(), fx.services(), 100) == 0);
    fx.clock.advance_ms(999);
    CHECK(screen_due_external_accounts(fx.session(), fx.services(), 100) == 0);
    CHECK(find_external_account(fx.session(), fx.owner, account->id)->status == "PENDING");
    CHECK(fx.events() == 0);

    fx.clock.advance_ms(1);
    CHECK(screen_due_external_accounts(fx.session(), fx.services(), 2) == 2);  // the limit holds
    CHECK(screen_due_external_accounts(fx.session(), fx.services(), 100) == 1);
    CHECK(screen_due_external_accounts(fx.session(), fx.services(), 100) == 0);
    CHECK(fx.events() == 3);

    auto active = find_external_account(fx.session(), fx.owner, account->id);
    CHECK(active->status == "ACTIVE");
    CHECK(active->beneficiary_verification_status == "MATCHED");
    CHECK(active->beneficiary_verified_name == "Ada Lovelace");
    CHECK_FALSE(active->screening_due_at_ms);
    auto partly = find_external_account(fx.session(), fx.owner, partial->id);
    CHECK(partly->beneficiary_verification_status == "PARTIAL_MATCH");
    CHECK(partly->beneficiary_verified_name == "Ada");
    CHECK(find_external_account(fx.session(), fx.owner, wallet->id)
              ->beneficiary_verification_status == "UNSUPPORTED");

    std::string payload, platform, env;
    soci::rowset<soci::row> events =
        (fx.session().prepare << "SELECT o.payload, c.platform_id, c.environment FROM "
                                 "outbox_events o JOIN platform_configs c ON c.tenant_key = "
                                 "o.tenant_key WHERE o.type = 'ACCOUNT_STATUS'");
    for (const auto& row : events) {
        std::string json = unpack_event_payload(row.get<std::string>(0));
        if (json.find(account->id) == std::string::npos) continue;
        payload = json;
        platform = row.get<std::string>(1);
        env = row.get<std::string>(2);
    }
    REQUIRE_FALSE(payload.empty());
    auto event = json::parse(payload).as_object();
    CHECK(event.at("accountId") == json::value(account->id));
    CHECK(event.at("status") == "ACTIVE");
    CHECK(event.at("previousStatus") == "PENDING");
    CHECK(event.at("customerId") == json::value(fx.customer_id));
    CHECK(event.at("platformCustomerId").is_string());
    CHECK(event.at("account").at("status") == "ACTIVE");
    CHECK(platform == fx.platform_id);
    CHECK(env == "sandbox");
}

TEST_CASE("bank link: a token per customer, a public token, one callback", "[store][bank_link]") {
    accounts_fixture fx;
    auto issued = create_link_token(fx.session(), fx.links(), fx.owner, fx.customer_id, 60000);
    REQUIRE(issued.ok());
    CHECK(issued->link_token.starts_with("link-sandbox-"));
    CHECK(issued->expires_at_ms == corridor::testing::fixture_start_ms + 60000);
    auto state = find_link_token(fx.session(), fx.clock, issued->link_token);
    REQUIRE(state);
    CHECK(state->owner == fx.owner);
    CHECK_FALSE(state->used);
    CHECK_FALSE(state->bank_id);

    // The stored row has only the hash.
    int clear = 0;
    fx.session() << "SELECT COUNT(*) FROM bank_link_tokens WHERE token_hash = :t",
        soci::use(issued->link_token), soci::into(clear);
    CHECK(clear == 0);

    // No public token yet: the callback is refused and nothing is used up.
    CHECK(complete_bank_link(fx.session(), fx.links(), issued->link_token,
                             "public-sandbox-" + std::string(64, 'a'), std::nullopt, 0)
              .error() == bank_link_error::public_token_mismatch);
    CHECK(
        issue_public_token(fx.session(), fx.links(), issued->link_token, "no-such-bank", "checking")
            .error() == bank_link_error::unknown_bank_account);
    CHECK(issue_public_token(fx.session(), fx.links(), issued->link_token, "corridor-test-bank",
                             "nope")
              .error() == bank_link_error::unknown_bank_account);
    auto first_public = issue_public_token(fx.session(), fx.links(), issued->link_token,
                                           "corridor-test-bank", "checking");
    auto public_token = issue_public_token(fx.session(), fx.links(), issued->link_token,
                                           "corridor-test-bank", "savings");
    REQUIRE((first_public.ok() && public_token.ok()));
    CHECK(public_token->starts_with("public-sandbox-"));
    // A new pick replaces the earlier public token.
    CHECK(complete_bank_link(fx.session(), fx.links(), issued->link_token, first_public.value(),
                             std::nullopt, 0)
              .error() == bank_link_error::public_token_mismatch);
    CHECK(complete_bank_link(fx.session(), fx.links(), issued->link_token, public_token.value(),
                             std::string("nope"), 0)
              .error() == bank_link_error::unknown_bank_account);

    auto linked = complete_bank_link(fx.session(), fx.links(), issued->link_token,
                                     public_token.value(), std::nullopt, 500);
    REQUIRE(linked.ok());
    CHECK(linked->status == "PENDING");
    CHECK(linked->origin == "BANK_LINK");
    CHECK(linked->customer_id == fx.customer_id);
    auto info = json::parse(linked->account_info_json);
    CHECK(info.at("accountNumber") == "1100220048");
    CHECK(info.at("accountCategory") == "SAVINGS");
    CHECK(info.at("routingNumber") == "021000021");
    CHECK(info.at("beneficiary").at("fullName") == "Ada Lovelace");
    CHECK(find_link_token(fx.session(), fx.clock, issued->link_token)->used);

    CHECK(complete_bank_link(fx.session(), fx.links(), issued->link_token, public_token.value(),
                             std::nullopt, 0)
              .error() == bank_link_error::token_used);
    CHECK(issue_public_token(fx.session(), fx.links(), issued->link_token, "corridor-test-bank",
                             "checking")
              .error() == bank_link_error::token_used);

    // The same bank account linked again through a new token is a duplicate, and leaves the token
    // unused.
    auto again = create_link_token(fx.session(), fx.links(), fx.owner, fx.customer_id, 60000);
    auto again_public = issue_public_token(fx.session(), fx.links(), again->link_token,
                                           "corridor-test-bank", "savings");
    CHECK(complete_bank_link(fx.session(), fx.links(), again->link_token, again_public.value(),
                             std::nullopt, 0)
              .error() == bank_link_error::duplicate_account);
    CHECK_FALSE(find_link_token(fx.session(), fx.clock, again->link_token)->used);
    // accountId picks another account of the same login.
    auto other = complete_bank_link(fx.session(), fx.links(), again->link_token,
                                    again_public.value(), std::string("timeout"), 0);
    REQUIRE(other.ok());
    CHECK(other->primary_identifier == "4400550005");

    fx.clock.advance_ms(500);
    CHECK(screen_due_external_accounts(fx.session(), fx.services(), 10) == 2);
    CHECK(find_external_account(fx.session(), fx.owner, linked->id)->status == "ACTIVE");
}

TEST_CASE("bank link: unknown customers, expiry and foreign tokens", "[store][bank_link]") {
    accounts_fixture fx;
    CHECK(create_link_token(fx.session(), fx.links(), fx.owner,
                            "Customer:0190d9d0-0000-7000-8000-000000000000", 1000)
              .error() == bank_link_error::customer_not_found);
    CHECK(create_link_token(fx.session(), fx.links(),
                            tenant{fx.platform_id, environment::production}, fx.customer_id, 1000)
              .error() == bank_link_error::customer_not_found);
    auto issued = create_link_token(fx.session(), fx.links(), fx.owner, fx.customer_id, 1000);
    REQUIRE(issued.ok());
    auto public_token = issue_public_token(fx.session(), fx.links(), issued->link_token,
                                           "example-savings-bank", "savings");
    REQUIRE(public_token.ok());
    fx.clock.advance_ms(1000);
    CHECK_FALSE(find_link_token(fx.session(), fx.clock, issued->link_token));
    CHECK(complete_bank_link(fx.session(), fx.links(), issued->link_token, public_token.value(),
                             std::nullopt, 0)
              .error() == bank_link_error::token_not_found);
    CHECK(issue_public_token(fx.session(), fx.links(), issued->link_token, "example-savings-bank",
                             "savings")
              .error() == bank_link_error::token_not_found);
    for (const std::string& bogus : std::vector<std::string>{
             "", "link-sandbox-", "link-sandbox-" + std::string(64, 'g'),
             "link-test-" + std::string(64, 'a'), "link-sandbox-" + std::string(64, 'a')}) {
        CHECK_FALSE(find_link_token(fx.session(), fx.clock, bogus));
        CHECK(complete_bank_link(fx.session(), fx.links(), bogus, public_token.value(),
                                 std::nullopt, 0)
                  .error() == bank_link_error::token_not_found);
    }
    REQUIRE(delete_customer(fx.session(), fx.clock, fx.owner, fx.customer_id).ok());
    CHECK(create_link_token(fx.session(), fx.links(), fx.owner, fx.customer_id, 1000).error() ==
          bank_link_error::customer_deleted);
}

TEST_CASE("the test banks hold only valid US accounts", "[bank_link]") {
    for (const auto& bank : test_banks()) {
        INFO(bank.id);
        CHECK(is_aba_routing_number(bank.routing_number));
        CHECK_FALSE(bank.accounts.empty());
        CHECK(find_test_bank(bank.id) == &bank);
    }
    CHECK(find_test_bank("nope") == nullptr);
}

TEST_CASE("sessions screening at once turn each account ACTIVE exactly once",
          "[store][external_accounts]") {
    accounts_fixture fx;
    constexpr int accounts = 24;
    for (int i = 0; i < accounts; ++i) {
        REQUIRE(fx.create(fx.customer_id, us_account("9" + std::to_string(1000 + i))).ok());
    }
    fx.clock.advance_ms(1000);
    std::atomic<int> activated{0};
    std::vector<std::string> errors(3);
    std::vector<std::thread> workers;
    for (int w = 0; w < 3; ++w) {
        workers.emplace_back([&, w] {
            try {
                auto session = fx.database.open_another();
                for (int pass = 0; pass < 100; ++pass) {
                    write_transaction transaction(*session);
                    int done = screen_due_external_accounts(*session, fx.services(), 5);
                    transaction.commit();
                    activated += done;
                    if (done == 0) break;
                }
            } catch (const std::exception& error) {
                errors[w] = error.what();
            }
        });
    }
    for (auto& worker : workers) worker.join();
    for (const auto& error : errors) CHECK(error == "");
    CHECK(activated.load() == accounts);
    CHECK(fx.events() == accounts);
    int active = 0;
    fx.session() << "SELECT COUNT(*) FROM external_accounts WHERE status = 'ACTIVE'",
        soci::into(active);
    CHECK(active == accounts);
}

TEST_CASE("defaults set from several sessions at once leave one default",
          "[store][external_accounts]") {
    accounts_fixture fx;
    constexpr int writers = 4;
    std::vector<std::optional<external_account_error>> outcomes(writers);
    std::vector<std::string> errors(writers);
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
        threads.emplace_back([&, w] {
            try {
                auto session = fx.database.open_another();
                new_external_account request;
                request.customer_id = fx.customer_id;
                request.currency = "USD";
                request.details = us_account("8" + std::to_string(100 + w));
                request.default_uma_deposit = true;
                auto created = create_external_account(*session, fx.services(), fx.owner, request);
                if (!created) outcomes[w] = created.error();
            } catch (const std::exception& error) {
                errors[w] = error.what();
            }
        });
    }
    for (auto& thread : threads) thread.join();
    int refused = 0;
    for (int w = 0; w < writers; ++w) {
        CHECK(errors[w] == "");
        // A writer that lost the race is told so; it never leaves a second default.
        if (outcomes[w]) {
            CHECK(*outcomes[w] == external_account_error::default_conflict);
            ++refused;
        }
    }
    int defaults = -1, rows = -1;
    fx.session() << "SELECT COUNT(*) FROM external_accounts WHERE default_uma_deposit = 1",
        soci::into(defaults);
    fx.session() << "SELECT COUNT(*) FROM external_accounts", soci::into(rows);
    CHECK(defaults == 1);
    CHECK(rows == writers - refused);
}
