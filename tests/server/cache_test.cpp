// The shared cache in front of token credentials and rendered configurations. Its two promises:
// an entry is served for ttl_ms and then reloaded (other processes' writes show within ttl_ms), and
// a value loaded before an invalidation is never stored after it (this process's writes show at
// once). The second is the epoch rule: put() with an epoch read before invalidate() is dropped.
#include "server/api/cache.hpp"

#include <catch2/catch.hpp>
#include <string>

using namespace corridor;

TEST_CASE("entries are served until ttl_ms has passed", "[server][cache]") {
    shared_cache<std::string> cache(1000);
    CHECK_FALSE(cache.get("k", 0));
    cache.put("k", "v1", 5000, cache.epoch());
    CHECK(cache.get("k", 5000) == "v1");
    CHECK(cache.get("k", 5999) == "v1");
    CHECK_FALSE(cache.get("k", 6000));
    CHECK_FALSE(cache.get("k", 100000));
    // A reload refreshes the entry's age.
    cache.put("k", "v2", 6000, cache.epoch());
    CHECK(cache.get("k", 6999) == "v2");
    CHECK_FALSE(cache.get("other", 6000));
}

TEST_CASE("a ttl of zero disables caching", "[server][cache]") {
    shared_cache<std::string> cache(0);
    cache.put("k", "v", 10, cache.epoch());
    CHECK_FALSE(cache.get("k", 10));
}

TEST_CASE("a value loaded before an invalidation is dropped", "[server][cache]") {
    shared_cache<std::string> cache(60000);
    cache.put("token", "old", 0, cache.epoch());

    // A request reads the epoch and starts loading from the database; meanwhile the token is
    // deleted and invalidated; the request's stale value must not land in the cache.
    auto epoch_seen = cache.epoch();
    cache.invalidate("token");
    CHECK_FALSE(cache.get("token", 1));
    cache.put("token", "stale", 2, epoch_seen);
    CHECK_FALSE(cache.get("token", 3));

    // A load that starts after the invalidation is stored.
    cache.put("token", "fresh", 4, cache.epoch());
    CHECK(cache.get("token", 5) == "fresh");
}

TEST_CASE("any invalidation fences every load in flight", "[server][cache]") {
    // The epoch is one counter for the whole cache, so an invalidation of one key also drops a
    // concurrent load of another key; that costs a reload, never a stale entry.
    shared_cache<std::string> cache(60000);
    auto epoch_seen = cache.epoch();
    cache.invalidate("a");
    cache.put("b", "loaded", 0, epoch_seen);
    CHECK_FALSE(cache.get("b", 1));

    epoch_seen = cache.epoch();
    cache.invalidate_if([](const std::string&) { return false; });
    cache.put("b", "loaded", 0, epoch_seen);
    CHECK_FALSE(cache.get("b", 1));
}

TEST_CASE("invalidate_if removes the matching entries only", "[server][cache]") {
    shared_cache<std::string> cache(60000);
    cache.put("client-1", "Token:1", 0, cache.epoch());
    cache.put("client-2", "Token:2", 0, cache.epoch());
    cache.put("client-3", "Token:1", 0, cache.epoch());
    cache.invalidate_if([](const std::string& value) { return value == "Token:1"; });
    CHECK_FALSE(cache.get("client-1", 1));
    CHECK(cache.get("client-2", 1) == "Token:2");
    CHECK_FALSE(cache.get("client-3", 1));
    cache.invalidate("client-2");
    CHECK_FALSE(cache.get("client-2", 1));
}

TEST_CASE("the cache never holds more than entries_max", "[server][cache]") {
    shared_cache<int> cache(60000, 3);
    for (int i = 0; i < 10; ++i) cache.put("k" + std::to_string(i), i, 0, cache.epoch());
    int present = 0;
    for (int i = 0; i < 10; ++i) present += cache.get("k" + std::to_string(i), 1).has_value();
    CHECK(present >= 1);
    CHECK(present <= 3);
    CHECK(cache.get("k9", 1) == 9);  // the latest put is always kept
}
