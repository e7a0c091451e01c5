#pragma once
// UMA private keys at rest: sealed with the service's key-encryption key by the one mechanism of
// ledger/store/key_sealing.hpp, bound to the row they belong to, so that a copy of the database alone
// does not sign for any platform.
#include <optional>
#include <string>
#include <string_view>

#include "ledger/store/key_sealing.hpp"
#include "ledger/base/random.hpp"
#include "uma/signing.hpp"

namespace corridor::uma {

using corridor::is_sealed;
using corridor::parse_sealing_key;
using corridor::sealing_key;

// "sealed1:" + hex(nonce 12 || tag 16 || ciphertext 32); `context` is authenticated, not stored.
std::string seal_secret(const sealing_key& key, const private_key& secret, std::string_view context,
                        random_source& random);
// Nullopt when the text is not a sealed secret, or the key or context is not the sealing one.
std::optional<private_key> unseal_secret(const sealing_key& key, std::string_view stored,
                                         std::string_view context);

}  // namespace corridor::uma
