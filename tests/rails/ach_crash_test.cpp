// A process that accepted a transfer-out to a US account is killed (SIGKILL) before the ACH
// cut-off, at each moment of the operation's way to the rail; a new process on the same database
// and the same ACH folder carries on. After the cut-off the entry is in exactly one NACHA file, and
// the transfer completes when the file settles: nothing lost, nothing paid twice.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "plugins/ach/nacha_reader.hpp"
#include "rails/loader.hpp"
#include "rails/payment_engine.hpp"
#include "tests/rails/funded_account.hpp"
#include "tests/support/store_fixture.hpp"

namespace corridor {
namespace {

namespace fs = std::filesystem;

// 2026-03-10 (Tuesday) 14:00 UTC = 10:00 EDT: half an hour before window 1's deadline.
constexpr std::int64_t morning_ms = 1773151200000;
constexpr std::int64_t deadline_ms = 1773153000000;    // 14:30 UTC
constexpr std::int64_t settlement_ms = 1773162000000;  // 17:00 UTC
constexpr std::int64_t amount = 4321;
const std::string node = "crash-node";

// Where the first process is when it is killed.
enum class kill_point {
    accepted,     // the transfer is committed; the engine has not claimed it
    claimed,      // the engine's claim committed; the rail was not called
    rail_called,  // the rail accepted it (spooled); the host did not record that
    recorded,     // the host recorded it PENDING
};

const char* name_of(kill_point point) {
    switch (point) {
        case kill_point::accepted: return "accepted";
        case kill_point::claimed: return "claimed";
        case kill_point::rail_called: return "rail_called";
        case kill_point::recorded: return "recorded";
    }
    return "";
}

const currency_registry& usd() {
    static const auto currencies = currency_registry::from_json(
        R"({"currencies": [{"code": "USD", "name": "US Dollar", "symbol": "$", "decimals": 2}]})");
    return currencies;
}

rail_load_config ach_only(const fs::path& dir) {
    rail_load_config config;
    config.plugins_dirs = {CORRIDOR_PLUGIN_DIR};
    config.rails = {"ach"};
    config.settings_json = {
        {"ach",
         R"({"odfi_routing":"121042882","company_id":"1234567890","data_dir":")" + dir.string() +
             R"(","funding_account_number":"9876543210","funding_routing_number":"021000021"})"}};
    return config;
}

const external_account_ref destination{
    "ExternalAccount:ach", "", "USD", "US_ACCOUNT",
    R"({"accountType":"US_ACCOUNT","accountNumber":"12345678","routingNumber":"231380104",)"
    R"("accountCategory":"CHECKING","beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Ada Lovelace"}})"};

rail_engine_settings settings_of_node() {
    rail_engine_settings settings;
    settings.node = node;
    return settings;
}

// The first process: a session, ids and rails of its own (nothing shared with the parent but the
// database and the folder); it stops at `point`, tells the parent, and waits to be killed.
[[noreturn]] void first_process(const database_url& url, const tenant& owner,
                                const std::string& account_id, const fs::path& dir,
                                kill_point point, int tell_fd) {
    auto reached = [&](kill_point here) {
        if (here != point) return;
        char byte = 1;
        if (::write(tell_fd, &byte, 1) != 1) ::_exit(4);
        for (;;) ::pause();
    };
    try {
        auto session = open_session(url);
        manual_clock clock(morning_ms);
        os_random random;
        id_generator ids(clock, random);
        auto rails = load_rails(ach_only(dir), nullptr);
        rail_engine_services services{ids, random, clock, usd(), rails, settings_of_node()};
        {
            write_transaction transaction(*session);
            auto begun = begin_transfer_out(*session, services,
                                            {owner, account_id, destination, amount, "payout"});
            if (!begun.ok()) ::_exit(3);
            transaction.commit();
        }
        reached(kill_point::accepted);
        payment_engine engine(services);
        rail_claim claimed;
        {
            write_transaction transaction(*session);
            claimed = engine.claim(*session);
            transaction.commit();
        }
        if (claimed.initiations.size() != 1) ::_exit(5);
        reached(kill_point::claimed);
        rail_answers answers = engine.call(claimed);
        reached(kill_point::rail_called);
        {
            write_transaction transaction(*session);
            engine.record(*session, answers);
            transaction.commit();
        }
        reached(kill_point::recorded);
    } catch (...) {
        ::_exit(2);
    }
    ::_exit(6);
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("a process killed before the ACH cut-off loses no payout and pays none twice",
          "[store][rails][engine][ach]") {
    for (kill_point point : {kill_point::accepted, kill_point::claimed, kill_point::rail_called,
                             kill_point::recorded}) {
        INFO("killed when " << name_of(point));
        testing::store_fixture f;
        tenant owner{f.make_platform("ach-crash.example"), environment::production};
        std::string account_id = testing::funded_platform_account(f, owner, "USD", 10000);
        fs::path dir = fs::temp_directory_path() /
                       ("corridor-ach-crash-" + std::to_string(::getpid()) + "-" + name_of(point));
        fs::remove_all(dir);

        int pipe_fds[2];
        REQUIRE(::pipe(pipe_fds) == 0);
        pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::close(pipe_fds[0]);
            first_process(f.database.url(), owner, account_id, dir, point, pipe_fds[1]);
        }
        ::close(pipe_fds[1]);
        char byte = 0;
        ssize_t got = ::read(pipe_fds[0], &byte, 1);
        ::close(pipe_fds[0]);
        ::kill(child, SIGKILL);
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        REQUIRE(got == 1);  // it reached the point (else it exited: its code says where)
        REQUIRE(WIFSIGNALED(status));
        CHECK(WTERMSIG(status) == SIGKILL);

        std::string operation_id;
        f.session() << "SELECT id FROM rail_operations", soci::into(operation_id);
        REQUIRE_FALSE(operation_id.empty());
        CHECK(*account_balance(f.session(), account_id) == 10000 - amount);  // held

        // The restarted process: same node (the same rails folder), a new run.
        auto rails = load_rails(ach_only(dir), nullptr);
        rail_engine_services services{f.ids, f.random, f.clock, usd(), rails, settings_of_node()};
        payment_engine engine(services);
        auto drive = [&] {
            write_transaction transaction(f.session());
            engine.drive(f.session());
            transaction.commit();
        };
        auto op = [&] { return *find_rail_operation(f.session(), operation_id); };
        f.clock.set_ms(morning_ms + 60'000);  // still before the cut-off, past the first lease
        drive();
        CHECK(op().status == "PENDING");
        CHECK(op().rail_node == node);
        CHECK(op().rail_epoch == engine.epoch());
        CHECK(fs::is_empty(dir / "outbox"));

        f.clock.set_ms(deadline_ms + 1000);
        drive();
        std::vector<fs::path> files;
        for (const auto& item : fs::directory_iterator(dir / "outbox"))
            files.push_back(item.path());
        REQUIRE(files.size() == 1);  // no temporary left either
        CHECK(files[0].filename() == "20260310-w1.ach");
        auto parsed = ach::parse_nacha(read(files[0]));
        REQUIRE(parsed.ok());
        CHECK(ach::check_nacha(parsed.value()).ok());
        REQUIRE(parsed->batches.size() == 1);
        REQUIRE(parsed->batches[0].entries.size() == 1);
        CHECK(parsed->batches[0].entries[0].amount_cents == amount);
        CHECK(parsed->batches[0].entries[0].transaction_code == 22);
        CHECK(op().rail_reference == parsed->batches[0].entries[0].trace_number);

        f.clock.set_ms(settlement_ms);
        drive();
        CHECK(op().status == "SETTLED");
        auto t = find_transaction(f.session(), owner, op().transaction_id);
        REQUIRE(t);
        CHECK(t->status == "COMPLETED");
        CHECK(*account_balance(f.session(), account_id) == 10000 - amount);
        CHECK(audit_book(f.session()).empty());
        fs::remove_all(dir);
    }
}

}  // namespace corridor
