#include "uma/pubkey_response.hpp"

#include "uma/certificate.hpp"
#include "uma/json_fields.hpp"

namespace corridor::uma {
namespace {

boost::json::array chain_json(const std::vector<bytes>& chain) {
    boost::json::array out;
    for (const auto& der : chain) out.push_back(boost::json::string(to_hex(der)));
    return out;
}

std::vector<bytes> read_chain(const json_fields& fields, std::string_view key) {
    std::vector<bytes> out;
    auto items = fields.optional_strings(key);
    if (!items) return out;
    for (const auto& item : *items) {
        auto der = from_hex(item);
        if (!der || der->empty())
            throw field_error(std::string(key) + " must hold hex DER certificates");
        out.push_back(std::move(*der));
    }
    return out;
}

result<public_key, uma_error> key_from(const std::vector<bytes>& chain,
                                       const std::optional<std::string>& raw,
                                       std::string_view role) {
    if (!chain.empty()) {
        if (auto key = certificate_public_key(chain.front())) return *key;
        return uma_error{
            error_kind::cert_chain_invalid,
            std::string("the ") + std::string(role) + " certificate holds no secp256k1 key",
            {}};
    }
    if (raw) {
        auto data = from_hex(*raw);
        if (data) {
            if (auto key = parse_public_key(*data)) return *key;
        }
        return uma_error{error_kind::invalid_pubkey_format,
                         std::string("the ") + std::string(role) + " key is not a secp256k1 point",
                         {}};
    }
    return uma_error{error_kind::invalid_pubkey_format, "no " + std::string(role) + " key", {}};
}

}  // namespace

boost::json::object to_json(const pubkey_response& response) {
    boost::json::object out;
    if (!response.signing_cert_chain.empty()) {
        out["signingCertChain"] = chain_json(response.signing_cert_chain);
    }
    if (!response.encryption_cert_chain.empty()) {
        out["encryptionCertChain"] = chain_json(response.encryption_cert_chain);
    }
    if (response.signing_pub_key) out["signingPubKey"] = *response.signing_pub_key;
    if (response.encryption_pub_key) out["encryptionPubKey"] = *response.encryption_pub_key;
    if (response.expiration_timestamp_s)
        out["expirationTimestamp"] = *response.expiration_timestamp_s;
    return out;
}

result<pubkey_response, uma_error> parse_pubkey_response(std::string_view json_text) {
    try {
        auto object = parse_object(json_text);
        json_fields fields(object);
        pubkey_response out;
        out.signing_cert_chain = read_chain(fields, "signingCertChain");
        out.encryption_cert_chain = read_chain(fields, "encryptionCertChain");
        out.signing_pub_key = fields.optional_string("signingPubKey");
        out.encryption_pub_key = fields.optional_string("encryptionPubKey");
        out.expiration_timestamp_s = fields.optional_int("expirationTimestamp");
        return out;
    } catch (const field_error& error) {
        return uma_error{error_kind::parse_pubkey_response_error, error.what(), {}};
    }
}

result<public_key, uma_error> signing_key(const pubkey_response& response) {
    return key_from(response.signing_cert_chain, response.signing_pub_key, "signing");
}

result<public_key, uma_error> encryption_key(const pubkey_response& response) {
    return key_from(response.encryption_cert_chain, response.encryption_pub_key, "encryption");
}

}  // namespace corridor::uma
