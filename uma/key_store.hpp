#pragma once
// Each platform environment has two secp256k1 key pairs, one to sign UMA messages and one that
// senders encrypt travel-rule data to, each with a self-signed certificate.
#include <string_view>

#include "ledger/tenant.hpp"
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
