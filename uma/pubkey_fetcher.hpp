#pragma once
// Counterparties' public keys come from https://{domain}/.well-known/lnurlpubkey (http for local
// domains, as in the SDKs). uma/ does no I/O itself: the server gives it an http_transport.
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

#include "ledger/base/clock.hpp"
#include "ledger/base/result.hpp"
#include "uma/pubkey_response.hpp"
#include "uma/uma_error.hpp"

namespace corridor::uma {

struct http_reply {
    int status = 0;
    std::string body;
};

class http_transport {
public:
    virtual ~http_transport() = default;
    // A GET of an absolute URL; the error text says why no reply came (refused address, timeout).
    virtual result<http_reply, std::string> get(const std::string& url) = 0;
    // A POST of a JSON body; transports that only fetch keys need not offer it.
    virtual result<http_reply, std::string> post_json(const std::string& url,
                                                      const std::string& body) {
        (void)url;
        (void)body;
        return std::string("this transport does not POST");
    }
};

class pubkey_fetcher {
public:
    virtual ~pubkey_fetcher() = default;
    virtual result<pubkey_response, uma_error> fetch(std::string_view vasp_domain) = 0;
};

// Fetches through a transport and keeps each domain's keys for cache_ms (keys rotate rarely; an
// expirationTimestamp in the document shortens the stay). Safe to share between threads.
class cached_pubkey_fetcher final : public pubkey_fetcher {
public:
    cached_pubkey_fetcher(http_transport& transport, const clock& time, std::int64_t cache_ms)
        : transport_(transport), time_(time), cache_ms_(cache_ms) {}
    result<pubkey_response, uma_error> fetch(std::string_view vasp_domain) override;

private:
    struct entry {
        pubkey_response keys;
        std::int64_t expires_at_ms = 0;
    };
    http_transport& transport_;
    const clock& time_;
    std::int64_t cache_ms_;
    std::mutex mutex_;
    std::map<std::string, entry, std::less<>> entries_;
};

// The URL of a domain's lnurlpubkey document; nullopt when the domain is not a plain host[:port].
std::optional<std::string> pubkey_url(std::string_view vasp_domain);

}  // namespace corridor::uma
