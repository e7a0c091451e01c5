#pragma once
// Each platform environment has two secp256k1 key pairs, one to sign UMA messages and one that
// senders encrypt travel-rule data to, each with a self-signed certificate.
#include <cstdint>
#include <optional>
#include <string_view>

#include "ledger/base/tenant.hpp"
#include "uma/hex.hpp"
#include "uma/pubkey_response.hpp"
#include "uma/signing.hpp"

namespace corridor::uma {

struct key_pair {
    private_key secret{};
    bytes certificate;  // DER
};

struct environment_keys {
    key_pair signing;
    key_pair encryption;
    // A rotation staged ahead of its switch: the pairs that take over at next_activate_at_ms (or
    // on command when it has none). Until then the current pairs alone sign and decrypt.
    std::optional<key_pair> next_signing;
    std::optional<key_pair> next_encryption;
    std::optional<std::int64_t> next_activate_at_ms;
    // After a switch: the encryption pair it replaced, and when, so that data a sender encrypted
    // to the old key before refetching still decrypts during an overlap the caller chooses.
    std::optional<key_pair> previous_encryption;
    std::optional<std::int64_t> previous_retired_at_ms;
};

class key_store {
public:
    virtual ~key_store() = default;
    // The environment's keys, made on first use. uma_domain names the certificates of new keys.
    virtual environment_keys keys_for(const tenant& owner, std::string_view uma_domain) = 0;
};

// The /.well-known/lnurlpubkey document: both chains and both raw keys.
pubkey_response public_keys_of(const environment_keys& keys);

}  // namespace corridor::uma
