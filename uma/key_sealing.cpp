#include "uma/key_sealing.hpp"

namespace corridor::uma {

std::string seal_secret(const sealing_key& key, const private_key& secret, std::string_view context,
                        random_source& random) {
    return seal_bytes(key, secret, context, random);
}

std::optional<private_key> unseal_secret(const sealing_key& key, std::string_view stored,
                                         std::string_view context) {
    auto secret = unseal_bytes(key, stored, context);
    if (!secret || secret->size() != 32) return std::nullopt;
    return private_key_from_bytes(*secret);
}

}  // namespace corridor::uma
