#pragma once
// The receiving side most incoming-payment store tests start from: a sandbox platform on
// receiver.example with one approved customer holding a USD account, USD-only prices at par, and
// incoming payments of 1234 cents from $bob@sender.example, optionally with their UMA invoice.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "ledger/payments/approvals.hpp"
#include "ledger/payments/uma_receipts.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor::testing {

struct receiver_fixture : store_fixture {
    receiver_fixture()
        : currencies(currency_registry::from_json(R"({"currencies": [
              {"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})")),
          rates(rate_table::from_json(R"({"base": "USD", "rates": {"USD": "1"},
              "pricing": {"spread_bps": 0, "variable_fee_bps": 0, "fixed_fee": {}}})")),
          funding(funding_directory::from_json("{}")) {
        owner = tenant{make_platform("receiver.example"), environment::sandbox};
        auto config = load_platform_config(session(), owner);
        new_customer request{std::string("alice"), "INDIVIDUAL", "APPROVED", {}, {"USD"}};
        auto created = create_customer(session(), customers(), owner, config->uma_domain, request);
        REQUIRE(created.ok());
        customer_id = created.value().id;
        session() << "SELECT id FROM ledger_accounts WHERE owner_id = :c AND currency = 'USD'",
            soci::use(customer_id), soci::into(account_id);
        REQUIRE(!account_id.empty());
    }

    payment_services services() {
        return payment_services{ids, random, clock, currencies, rates, funding, 60000};
    }

    // An incoming payment of 1234 cents from $bob@sender.example to the customer's USD account.
    incoming_payment_request incoming_request() {
        incoming_payment_request request;
        request.owner = owner;
        request.destination_account_id = account_id;
        request.amount = 1234;
        request.sender_uma_address = "$bob@sender.example";
        return request;
    }

    // That payment begun, with an OPEN invoice of 12,340,000 msat whose payment hash is 63 `fill`
    // characters and a digit; returns {transaction id, payment hash}.
    std::pair<std::string, std::string> begin_invoiced(char fill) {
        auto begun = begin_incoming_approval(session(), services(), incoming_request());
        REQUIRE(begun.ok());
        std::string hash = std::string(63, fill) + std::to_string(++invoice_serial % 10);
        record_uma_invoice(session(), {hash, begun.value().id, owner, "lnbcrt1...", 12'340'000,
                                       "OPEN", clock.now_ms(), 0});
        return {begun.value().id, hash};
    }

    currency_registry currencies;
    table_rate_source rates;
    funding_directory funding;
    tenant owner;
    std::string customer_id;
    std::string account_id;
    int invoice_serial = 0;
};

}  // namespace corridor::testing
