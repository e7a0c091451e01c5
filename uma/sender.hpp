#pragma once
// The sending side of an UMA lookup: ask another provider about "$user@domain", with a signed
// request, fall back once to a version it supports when it answers 412, and accept the answer only
// when its compliance data is signed by the receiver's published key over the address asked for.
#include <string>
#include <string_view>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "uma/lnurlp.hpp"
#include "uma/nonce_store.hpp"
#include "uma/pubkey_fetcher.hpp"
#include "uma/signing.hpp"

namespace corridor::uma {

struct sender_identity {
    std::string vasp_domain;  // where the receiver fetches our keys
    private_key signing{};
    bool is_subject_to_travel_rule = true;
};

struct receiver_lookup {
    lnurlp_response response;
    pubkey_response receiver_keys;  // for the pay request's encryption and the reply's signature
    uma_version version;
};

struct sender_services {
    http_transport& transport;
    pubkey_fetcher& keys;
    nonce_store& nonces;
    const clock& time;
    random_source& random;
};

result<receiver_lookup, uma_error> lookup_receiver(std::string_view receiver_address,
                                                   const sender_identity& sender,
                                                   const sender_services& services);

}  // namespace corridor::uma
