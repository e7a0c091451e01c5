#pragma once
// A small blocking HTTP(S) client for UMA (key fetches, lookups, pay requests), run on a database
// thread (never an io thread).
// It refuses private, loopback and link-local addresses unless the operator allows them, follows
// no redirects, bounds the whole exchange by a timeout and the body by a size.
#include <cstdint>
#include <string>

#include "uma/pubkey_fetcher.hpp"

namespace corridor {

struct outbound_get_limits {
    bool allow_private_addresses = false;
    std::int64_t timeout_ms = 5000;
    std::size_t body_bytes_max = 64 * 1024;
};

class outbound_get final : public uma::http_transport {
public:
    explicit outbound_get(outbound_get_limits limits) : limits_(limits) {}
    result<uma::http_reply, std::string> get(const std::string& url) override;
    result<uma::http_reply, std::string> post_json(const std::string& url,
                                                   const std::string& body) override;

private:
    result<uma::http_reply, std::string> send(const std::string& url, const std::string* body);
    outbound_get_limits limits_;
};

}  // namespace corridor
