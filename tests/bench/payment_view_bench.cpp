// The operator's view of one payment (find_payment_view: `corridor payment show`, the dashboard's
// transaction page) on a big ledger: 1,000,000 transfers and 1,000,000 webhook events (uuid v7 ids,
// made over 20 days), one payment among them with a lifetime of five minutes. Times the view as it
// reads now (its transfers and events by a range of their ids) against the statements it sent
// before (every transfer scanned for its transaction_id, the outbox scanned for a creation time),
// in the same run, and prints both and their ratio. Prints figures; asserts nothing about time.
//   corridor_bench_payment_view [sqlite:PATH | postgresql://...] [rows]
// Without a URL: a temporary SQLite file, removed at the end. A PostgreSQL database must be empty.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"
#include "ledger/book/book.hpp"
#include "ledger/payments/operator_views.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/ids.hpp"
#include "ledger/store/migrations.hpp"
#include "ledger/store/outbox.hpp"

using namespace corridor;

namespace {

constexpr std::int64_t start_ms = 1760313600000;  // 2025-10-13
constexpr std::int64_t span_ms = 20LL * 86400000;

// The uuid v7 text of row g of `rows`, made at start_ms + g * span / rows (SQL over g).
std::string uuid_sql(database_backend backend, long long rows) {
    std::string ms =
        "(" + std::to_string(start_ms) + " + g * " + std::to_string(span_ms / rows) + ")";
    if (backend == database_backend::sqlite) {
        return "printf('%08x-%04x-7%03x-8%03x-%012x', " + ms + " >> 16, " + ms +
               " & 65535, g % 4096, (g * 7919) % 4096, g)";
    }
    auto hex = [](const std::string& expr, int width) {
        return "lpad(to_hex(" + expr + "), " + std::to_string(width) + ", '0')";
    };
    return hex(ms + " >> 16", 8) + " || '-' || " + hex(ms + " & 65535", 4) + " || '-7' || " +
           hex("(g % 4096)::int", 3) + " || '-8' || " + hex("((g * 7919) % 4096)::int", 3) +
           " || '-' || " + hex("g", 12);
}

std::string series(database_backend backend, long long rows) {
    if (backend == database_backend::sqlite) {
        return "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < " +
               std::to_string(rows) + ") ";
    }
    return "";
}

std::string from_series(database_backend backend, long long rows) {
    if (backend == database_backend::sqlite) return " FROM s";
    return " FROM generate_series(1::bigint, " + std::to_string(rows) + ") AS g";
}

// A posting names its accounts by key (migration 46).
std::string account_key_sql(const std::string& id) {
    return "(SELECT account_key FROM ledger_accounts WHERE id = '" + id + "')";
}

void fill(soci::session& session, database_backend backend, long long rows,
          const std::string& platform, const std::string& debit, const std::string& credit) {
    std::string ms =
        "(" + std::to_string(start_ms) + " + g * " + std::to_string(span_ms / rows) + ")";
    session << series(backend, rows) +
                   "INSERT INTO ledger_transfers (id, debit_account_key, credit_account_key, "
                   "amount, currency, code, transaction_id, created_at_ms) SELECT "
                   "packed_id('Transfer:' || " +
                   uuid_sql(backend, rows) + "), " + account_key_sql(debit) + ", " +
                   account_key_sql(credit) + ", 100, 'USD', 'send', packed_id('Transaction:' || " +
                   uuid_sql(backend, rows) + "), " + ms + from_series(backend, rows);
    std::string payload =
        "'{\"type\":\"OUTGOING_PAYMENT\",\"data\":{\"id\":\"Transaction:bench-' || g || '\"}}'";
    if (backend == database_backend::postgresql) payload = "convert_to(" + payload + ", 'UTF8')";
    session << series(backend, rows) +
                   "INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, "
                   "next_attempt_at_ms, created_at_ms, purpose) SELECT packed_id('Webhook:' || " +
                   uuid_sql(backend, rows) +
                   "), (SELECT tenant_key FROM platform_configs WHERE platform_id = '" + platform +
                   "' AND environment = 'sandbox'), 'OUTGOING_PAYMENT', " + payload +
                   ", 'DELIVERED', 1, " + ms + ", " + ms + ", 'NOTIFY'" +
                   from_series(backend, rows);
}

// The payment under test, at 80% of the span: a transfer and an event when made, two transfers and
// an event at its last change, five minutes later.
std::string add_payment(soci::session& session, const tenant& owner, const std::string& debit,
                        const std::string& credit) {
    manual_clock time(start_ms + span_ms * 8 / 10);
    os_random random;
    id_generator ids(time, random);
    book_services book{ids, random, time};
    std::string id = ids.next("Transaction");
    std::string env(owner.env_name());
    long long created = time.now_ms();
    post_transfer(session, book, owner, {debit, credit, 100, "USD", "send", id});
    record_event(session, ids, time, owner, "OUTGOING_PAYMENT",
                 R"({"type":"OUTGOING_PAYMENT","data":{"id":")" + id + R"("}})");
    time.advance_ms(300000);
    post_transfer(session, book, owner, {credit, debit, 100, "USD", "refund", id});
    post_transfer(session, book, owner, {debit, credit, 100, "USD", "send", id});
    record_event(session, ids, time, owner, "OUTGOING_PAYMENT",
                 R"({"type":"OUTGOING_PAYMENT","data":{"id":")" + id + R"("}})");
    long long updated = time.now_ms();
    session
        << "INSERT INTO transactions (id, tenant_key, type, status, quote_id, "
           "customer_id, platform_customer_id, source_type, source_account_id, "
           "source_currency, destination_type, destination_account_id, destination_currency, "
           "sent_amount, received_amount, fees, exchange_rate, rate_details, description, "
           "failure_reason, reference, refund, settled_at_ms, created_at_ms, updated_at_ms) "
           "VALUES (packed_id(:i), (SELECT tenant_key FROM platform_configs WHERE platform_id = "
           ":p AND environment = :e), 'OUTGOING', 'COMPLETED', NULL, NULL, '', 'ACCOUNT', '', "
           "'USD', "
           "'ACCOUNT', '', 'USD', 100, 100, 0, '', '{}', '', '', '', '', :s, :c, :u)",
        soci::use(id), soci::use(owner.platform_id), soci::use(env), soci::use(updated),
        soci::use(created), soci::use(updated);
    return id;
}

// What find_payment_view sent for the transfers and the events before it read by a range of ids.
std::size_t view_before(soci::session& session, const std::string& id, long long created,
                        long long updated, const std::string& platform) {
    std::vector<std::string> transfer_ids(100), event_ids(100);
    soci::statement transfers =
        (session.prepare << "SELECT typed_id('Transfer', id) FROM ledger_transfers WHERE "
                            "transaction_id = packed_id(:x) ORDER BY created_at_ms, id",
         soci::use(id), soci::into(transfer_ids));
    transfers.execute(true);
    std::size_t found = transfer_ids.size();
    long long since = created - 60000, until = updated + 60000;
    std::string pattern = "%\"" + id + "\"%";
    soci::statement events =
        (session.prepare << "SELECT typed_id('Webhook', id) FROM outbox_events WHERE tenant_key = "
                            "(SELECT tenant_key "
                            "FROM platform_configs WHERE platform_id = :p AND environment = "
                            "'sandbox') AND created_at_ms >= :c AND created_at_ms <= :u AND "
                            "(payload NOT LIKE '{%' OR payload LIKE :l) ORDER BY created_at_ms, id",
         soci::use(platform), soci::use(since), soci::use(until), soci::use(pattern),
         soci::into(event_ids));
    events.execute(true);
    return found + event_ids.size();
}

template <typename F>
double median_ms(F&& run, int times) {
    std::vector<double> took;
    for (int i = 0; i < times; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        run();
        took.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
    }
    std::sort(took.begin(), took.end());
    return took[took.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string url_text = argc > 1 ? argv[1] : "";
    long long rows = argc > 2 ? std::stoll(argv[2]) : 1000000;
    std::filesystem::path scratch;
    if (url_text.empty()) {
        scratch = std::filesystem::temp_directory_path() /
                  ("corridor-view-bench-" + std::to_string(::getpid()));
        std::filesystem::create_directories(scratch);
        url_text = "sqlite:" + (scratch / "bench.db").string();
    }
    auto url = database_url::parse(url_text);
    if (!url) {
        std::fprintf(stderr, "payment view bench: not a database URL: %s\n", url_text.c_str());
        return 2;
    }
    {
        auto session = open_session(*url);
        apply_migrations(*session);
        system_clock wall;
        os_random random;
        id_generator ids(wall, random);
        new_platform request{"Bench",
                             "bench.example",
                             false,
                             {{"USD", 1, 1000000000, {"OUTGOING", "INCOMING"}, {}}}};
        tenant owner{create_platform(*session, {ids, random, wall}, request).value(),
                     environment::sandbox};
        book_services book{ids, random, wall};
        std::string debit =
            ensure_account(*session, book, owner, account_kind::settlement, "", "USD");
        std::string credit = ensure_account(*session, book, owner, account_kind::fees, "", "USD");
        auto t0 = std::chrono::steady_clock::now();
        std::string id;
        {
            write_transaction transaction(*session);
            fill(*session, url->backend, rows, owner.platform_id, debit, credit);
            id = add_payment(*session, owner, debit, credit);
            transaction.commit();
        }
        if (url->backend == database_backend::postgresql)
            *session << "VACUUM ANALYZE";
        else
            *session << "ANALYZE";
        std::printf("filled %lld transfers and %lld webhook events in %.1f s (%s)\n", rows, rows,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                    url->backend == database_backend::sqlite ? "SQLite" : "PostgreSQL");
        auto view = find_payment_view(*session, id);
        long long created = std::stoll(field_text(view->transaction, "created_at_ms"));
        long long updated = std::stoll(field_text(view->transaction, "updated_at_ms"));
        std::size_t before_rows = view_before(*session, id, created, updated, owner.platform_id);
        std::size_t after_rows = view->postings.size() + view->webhook_events.size();
        std::printf("the payment: %zu postings, %zu events (the statements of before: %zu rows)\n",
                    view->postings.size(), view->webhook_events.size(), before_rows);
        if (before_rows != after_rows || view->postings.size() != 3) {
            std::fprintf(stderr, "payment view bench: the two reads disagree\n");
            return 1;
        }
        double before_ms =
            median_ms([&] { view_before(*session, id, created, updated, owner.platform_id); }, 5);
        double after_ms = median_ms([&] { find_payment_view(*session, id); }, 5);
        std::printf("before (transfers by transaction_id, events by created_at_ms): %.2f ms\n",
                    before_ms);
        std::printf("after (find_payment_view, ranges of ids):                     %.2f ms\n",
                    after_ms);
        std::printf("ratio before/after: %.0fx (median of 5 each)\n", before_ms / after_ms);
    }
    if (!scratch.empty()) std::filesystem::remove_all(scratch);
    return 0;
}
