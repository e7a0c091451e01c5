// The ACH rail's durable state (plugins/ach/ach_spool): what one instance wrote, the next one
// reads back after a restart, including after a crash in the middle of an append or of a file's
// commit.
#include "plugins/ach/ach_spool.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace corridor::ach;

namespace {

struct spool_dirs {
    explicit spool_dirs(const std::string& name)
        : root(fs::temp_directory_path() /
               ("corridor-ach-spool-" + name + "-" + std::to_string(::getpid()))) {
        fs::remove_all(root);
    }
    ~spool_dirs() { fs::remove_all(root); }
    fs::path state() const { return root / "state"; }
    fs::path outbox() const { return root / "outbox"; }
    fs::path root;
};

spooled_entry entry(const std::string& id, std::uint64_t amount) {
    spooled_entry out;
    out.operation_id = id;
    out.queued_at_ms = 1773151200000;
    out.entry.direction = entry_direction::credit;
    out.entry.category = account_category::savings;
    out.entry.rdfi_routing = "231380104";
    out.entry.account_number = "555-0001";
    out.entry.amount_cents = amount;
    out.entry.individual_id = "tion:payout-1";
    out.entry.individual_name = "Jose Silva";
    out.entry.addenda = "invoice 42";
    return out;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("ach spool: entries read back field for field after a restart", "[plugins][ach]") {
    spool_dirs dirs("reload");
    {
        ach_spool spool(dirs.state(), dirs.outbox());
        REQUIRE(spool.writable());
        spool.add(entry("op-1", 100));
        spool.add(entry("op-2", 200));
        CHECK_THROWS(spool.add(entry("op-1", 100)));  // one entry per operation
    }
    ach_spool reloaded(dirs.state(), dirs.outbox());
    REQUIRE(reloaded.spooled().size() == 2);
    const spooled_entry* one = reloaded.find_spooled("op-1");
    REQUIRE(one != nullptr);
    CHECK(one->queued_at_ms == 1773151200000);
    CHECK(one->entry.direction == entry_direction::credit);
    CHECK(one->entry.category == account_category::savings);
    CHECK(one->entry.rdfi_routing == "231380104");
    CHECK(one->entry.account_number == "555-0001");
    CHECK(one->entry.amount_cents == 100);
    CHECK(one->entry.individual_id == "tion:payout-1");
    CHECK(one->entry.individual_name == "Jose Silva");
    CHECK(one->entry.addenda == std::optional<std::string>("invoice 42"));
    CHECK(reloaded.find_spooled("op-2")->entry.amount_cents == 200);
    CHECK(reloaded.find_spooled("op-3") == nullptr);
}

TEST_CASE("ach spool: a line torn by a crash is dropped, a damaged one refuses to load",
          "[plugins][ach]") {
    spool_dirs dirs("torn");
    {
        ach_spool spool(dirs.state(), dirs.outbox());
        spool.add(entry("op-1", 100));
    }
    std::string whole = read(dirs.state() / "spool.log");
    {
        // An append cut short: initiate never answered OK for it.
        std::ofstream out(dirs.state() / "spool.log", std::ios::binary | std::ios::app);
        out << spooled_entry_json(entry("op-2", 200)).substr(0, 30);
    }
    {
        ach_spool reloaded(dirs.state(), dirs.outbox());
        CHECK(reloaded.spooled().size() == 1);
        CHECK(reloaded.find_spooled("op-2") == nullptr);
        CHECK(read(dirs.state() / "spool.log") == whole);  // the torn bytes are cut off
        reloaded.add(entry("op-3", 300));
    }
    CHECK(ach_spool(dirs.state(), dirs.outbox()).spooled().size() == 2);
    {
        std::ofstream out(dirs.state() / "spool.log", std::ios::binary | std::ios::app);
        out << "{\"id\":\"op-4\"}\n";  // a whole line without its fields: not a crash's doing
    }
    CHECK_THROWS_WITH(ach_spool(dirs.state(), dirs.outbox()), Catch::Contains("is missing"));
}

TEST_CASE("ach spool: a committed file takes its entries out of the spool for good",
          "[plugins][ach]") {
    spool_dirs dirs("commit");
    {
        ach_spool spool(dirs.state(), dirs.outbox());
        spool.add(entry("op-1", 100));
        spool.add(entry("op-2", 200));
        spool.add(entry("op-3", 300));
        spool.record_outcome({"op-3", 3, 5, "", "", "", "refused by the writer"});
        CHECK(spool.find_spooled("op-3") == nullptr);
        sent_file file;
        file.file_name = "20260310-w1.ach";
        file.settlement_ms = 1773162000000;
        file.entries = {{"op-1", "121042880000001"}, {"op-2", "121042880000002"}};
        spool.commit_file(file, "NACHA TEXT\n", 3);
        CHECK_THROWS(spool.commit_file(file, "AGAIN\n", 5));  // never in two files
        CHECK(spool.spooled().empty());
    }
    CHECK(read(dirs.outbox() / "20260310-w1.ach") == "NACHA TEXT\n");
    ach_spool reloaded(dirs.state(), dirs.outbox());
    CHECK(reloaded.spooled().empty());
    auto sent = reloaded.find_sent("op-2");
    REQUIRE(sent);
    CHECK(sent->first->file_name == "20260310-w1.ach");
    CHECK(sent->first->settlement_ms == 1773162000000);
    CHECK(sent->second == "121042880000002");
    CHECK(reloaded.operation_of_trace("121042880000001") == "op-1");
    CHECK(reloaded.operation_of_trace("121042880000009").empty());
    REQUIRE(reloaded.find_outcome("op-3") != nullptr);
    CHECK(reloaded.find_outcome("op-3")->message == "refused by the writer");
    CHECK(reloaded.next_trace_sequence() == 3);
    CHECK(reloaded.files_of_day("20260310") == 1);
    CHECK(reloaded.files_of_day("20260311") == 0);
    // The bank's transfer takes the file away: still counted, still known.
    fs::remove(dirs.outbox() / "20260310-w1.ach");
    CHECK(reloaded.files_of_day("20260310") == 1);
}

TEST_CASE("ach spool: only one instance writes a state folder", "[plugins][ach]") {
    spool_dirs dirs("lock");
    ach_spool owner(dirs.state(), dirs.outbox());
    owner.add(entry("op-1", 100));
    ach_spool other(dirs.state(), dirs.outbox());
    CHECK_FALSE(other.writable());
    CHECK(other.spooled().empty());  // nothing read: the owner may be changing it
    CHECK_THROWS(other.add(entry("op-2", 200)));
}
