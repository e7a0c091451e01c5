// The pieces the dashboard's data pages are made of: the filter query read as the API reads it,
// paging links, money and time as shown, and HTML that screen readers can follow (labelled
// controls, table headings with scope) with every dynamic string escaped.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>

#include "ledger/book/currencies.hpp"
#include "server/api/errors.hpp"
#include "server/api/handler_steps.hpp"
#include "server/api/input.hpp"
#include "server/dashboard/pages/page_kit.hpp"

using namespace corridor;

namespace {

currency_registry test_currencies() {
    return currency_registry::from_json(
        R"({"currencies": [{"code": "USD", "name": "Dollar", "symbol": "$", "decimals": 2},
                           {"code": "JPY", "name": "Yen", "symbol": "Y", "decimals": 0},
                           {"code": "BTC", "name": "Bitcoin", "symbol": "B", "decimals": 8}]})");
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a filter form's empty fields are no filter, and its values reach the API's reader",
          "[dashboard_pages]") {
    auto query = filter_query(
        "/dashboard/transactions?status=&type=INCOMING&customerId=&reference=order+42&startDate=");
    CHECK_FALSE(query.get("status").has_value());
    CHECK_FALSE(query.get("customerId").has_value());
    CHECK(query.get("type") == std::optional<std::string>("INCOMING"));
    CHECK(query.get("reference") == std::optional<std::string>("order 42"));
    auto filter = read_transaction_filter(query);
    CHECK_FALSE(filter.status.has_value());
    CHECK(filter.type == std::optional<std::string>("INCOMING"));
    CHECK(filter.reference == std::optional<std::string>("order 42"));
    CHECK_FALSE(filter.start_ms.has_value());
}

TEST_CASE("a bad filter on a page is the API's 400 naming the parameter", "[dashboard_pages]") {
    auto query = filter_query("/dashboard/transactions?status=LOST");
    try {
        read_transaction_filter(query);
        FAIL("no api_error thrown");
    } catch (const api_error& error) {
        CHECK(error.code == error_code::invalid_input);
        CHECK(contains(error.message, "status"));
    }
    auto dates = filter_query("/dashboard/quotes?createdAfter=2025-10-13");
    CHECK(read_quote_filter(dates).created_after_ms.has_value());
    CHECK_THROWS_AS(read_quote_filter(filter_query("/dashboard/quotes?receivingUmaAddress=nobody")),
                    api_error);
}

TEST_CASE("the next page keeps the filters and replaces the cursor", "[dashboard_pages]") {
    CHECK(next_page_href("/dashboard/transactions?status=COMPLETED&cursor=old", "abc=") ==
          "/dashboard/transactions?status=COMPLETED&cursor=abc%3D");
    CHECK(next_page_href("/dashboard/quotes", "x") == "/dashboard/quotes?cursor=x");
}

TEST_CASE("ids in links are percent-encoded", "[dashboard_pages]") {
    CHECK(detail_href("transactions", "Transaction:01-ab") ==
          "/dashboard/transactions/Transaction%3A01-ab");
    CHECK(url_encode("a b/\"<") == "a%20b%2F%22%3C");
}

TEST_CASE("money is shown in major units with the currency's decimals", "[dashboard_pages]") {
    auto currencies = test_currencies();
    CHECK(format_money(123456, "USD", currencies) == "1,234.56 USD");
    CHECK(format_money(5, "USD", currencies) == "0.05 USD");
    CHECK(format_money(0, "USD", currencies) == "0.00 USD");
    CHECK(format_money(-1050, "USD", currencies) == "-10.50 USD");
    CHECK(format_money(1000000, "JPY", currencies) == "1,000,000 JPY");
    CHECK(format_money(1, "BTC", currencies) == "0.00000001 BTC");
    CHECK(format_money(42, "XYZ", currencies) == "42 XYZ");
    CHECK(format_money(std::numeric_limits<std::int64_t>::min(), "JPY", currencies) ==
          "-9,223,372,036,854,775,808 JPY");
}

TEST_CASE("times are shown in UTC, and an unset time as nothing", "[dashboard_pages]") {
    CHECK(format_time(1760344200123) == "2025-10-13 08:30:00 UTC");
    CHECK(format_time(0).empty());
}

TEST_CASE("tables have a caption, column and row headings, and escape nothing twice",
          "[dashboard_pages]") {
    auto html = table_html("Postings <all>", {{"Id"}, {"Amount", true}},
                           {{code_html("Tx:<1>"), "1.00 USD"}}, "none");
    CHECK(contains(html, "<caption>Postings &lt;all&gt;</caption>"));
    CHECK(contains(html, "<th scope=\"col\">Id</th>"));
    CHECK(contains(html, "<th scope=\"col\" class=\"num\">Amount</th>"));
    CHECK(contains(html, "<th scope=\"row\"><code>Tx:&lt;1&gt;</code></th>"));
    CHECK(contains(html, "<td class=\"num\">1.00 USD</td>"));
    CHECK(table_html("Empty", {{"Id"}}, {}, "Nothing <here>.") ==
          "<p class=\"empty\">Nothing &lt;here&gt;.</p>");
}

TEST_CASE("every form control has a label bound to it", "[dashboard_pages]") {
    auto input = text_field("customerId", "Customer id", "\"><script>", "text", "a hint");
    CHECK(contains(input, "<label for=\"f-customerId\">Customer id</label>"));
    CHECK(contains(input, "id=\"f-customerId\" name=\"customerId\""));
    CHECK(contains(input, "value=\"&quot;&gt;&lt;script&gt;\""));
    CHECK(contains(input, "aria-describedby=\"f-customerId-hint\""));
    auto select =
        select_field("status", "Status", {{"COMPLETED", "COMPLETED"}, {"FAILED", "FAILED"}},
                     "FAILED", "Any status");
    CHECK(contains(select, "<label for=\"f-status\">Status</label>"));
    CHECK(contains(select, "<option value=\"\">Any status</option>"));
    CHECK(contains(select, "<option value=\"FAILED\" selected>FAILED</option>"));
    CHECK_FALSE(contains(select, "<option value=\"COMPLETED\" selected>"));
}
