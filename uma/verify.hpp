#pragma once
// Verification of signed UMA messages: the nonce is checked and saved first (a replay is refused
// even with a valid signature), then the signature over the message's signable payload.
// Each returns nullopt when the message is genuine, else the UMA error to answer with.
#include <optional>
#include <string_view>

#include "uma/lnurlp.hpp"
#include "uma/nonce_store.hpp"
#include "uma/pay_request.hpp"
#include "uma/pay_response.hpp"
#include "uma/post_transaction.hpp"
#include "uma/signing.hpp"
#include "uma/uma_error.hpp"

namespace corridor::uma {

// scope: the counterparty's domain, under which its nonces are remembered.
std::optional<uma_error> verify_lnurlp_request(const lnurlp_request& request,
                                               const public_key& sender, nonce_store& nonces);
std::optional<uma_error> verify_lnurlp_response(const lnurlp_response& response,
                                                const public_key& receiver, std::string_view scope,
                                                nonce_store& nonces);
std::optional<uma_error> verify_pay_request(const pay_request& request, const public_key& sender,
                                            std::string_view scope, nonce_store& nonces);
std::optional<uma_error> verify_pay_response(const pay_response& response,
                                             std::string_view payer_identifier,
                                             std::string_view payee_identifier,
                                             const public_key& receiver, std::string_view scope,
                                             nonce_store& nonces);
std::optional<uma_error> verify_post_transaction(const post_transaction_callback& callback,
                                                 const public_key& caller, nonce_store& nonces);

}  // namespace corridor::uma
