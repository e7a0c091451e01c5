#include "uma/pubkey_fetcher.hpp"

#include <algorithm>

#include "uma/lnurlp.hpp"

namespace corridor::uma {
namespace {

uma_error fetch_error(std::string reason) {
    return uma_error{error_kind::counterparty_pubkey_fetch_error, std::move(reason), {}};
}

// A host name or IP literal with an optional port: nothing that could change the URL's meaning.
bool plain_domain(std::string_view domain) {
    if (domain.empty() || domain.size() > 255) return false;
    return std::all_of(domain.begin(), domain.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
    });
}

}  // namespace

std::optional<std::string> pubkey_url(std::string_view vasp_domain) {
    if (!plain_domain(vasp_domain)) return std::nullopt;
    std::string scheme = is_local_domain(vasp_domain) ? "http://" : "https://";
    return scheme + std::string(vasp_domain) + "/.well-known/lnurlpubkey";
}

result<pubkey_response, uma_error> cached_pubkey_fetcher::fetch(std::string_view vasp_domain) {
    std::int64_t now_ms = time_.now_ms();
    {
        std::lock_guard lock(mutex_);
        auto found = entries_.find(vasp_domain);
        if (found != entries_.end() && found->second.expires_at_ms > now_ms)
            return found->second.keys;
    }
    auto url = pubkey_url(vasp_domain);
    if (!url) return fetch_error("vaspDomain is not a host name with an optional port");
    auto reply = transport_.get(*url);
    if (!reply) return fetch_error("fetching " + *url + " failed: " + reply.error());
    if (reply->status != 200) {
        return fetch_error("fetching " + *url + " answered HTTP " + std::to_string(reply->status));
    }
    auto keys = parse_pubkey_response(reply->body);
    if (!keys) return fetch_error("the keys at " + *url + " do not parse: " + keys.error().reason);
    if (!signing_key(keys.value()))
        return fetch_error("the keys at " + *url + " hold no signing key");
    std::int64_t expires_at_ms = now_ms + cache_ms_;
    if (keys->expiration_timestamp_s) {
        expires_at_ms = std::min(expires_at_ms, *keys->expiration_timestamp_s * 1000);
    }
    std::lock_guard lock(mutex_);
    entries_[std::string(vasp_domain)] = entry{keys.value(), expires_at_ms};
    return keys;
}

}  // namespace corridor::uma
