#include "uma/key_store.hpp"

namespace corridor::uma {

pubkey_response public_keys_of(const environment_keys& keys) {
    pubkey_response out;
    out.signing_cert_chain.push_back(keys.signing.certificate);
    out.encryption_cert_chain.push_back(keys.encryption.certificate);
    out.signing_pub_key = to_hex(public_key_of(keys.signing.secret));
    out.encryption_pub_key = to_hex(public_key_of(keys.encryption.secret));
    return out;
}

}  // namespace corridor::uma
