#include "uma/post_transaction.hpp"

#include "uma/json_fields.hpp"

namespace corridor::uma {

boost::json::object to_json(const post_transaction_callback& callback) {
    boost::json::array utxos;
    for (const auto& item : callback.utxos) {
        utxos.push_back(
            boost::json::object{{"utxo", item.utxo}, {"amountMsats", item.amount_msats}});
    }
    boost::json::object out;
    out["utxos"] = std::move(utxos);
    out["vaspDomain"] = callback.vasp_domain;
    out["signature"] = callback.signature;
    out["signatureNonce"] = callback.signature_nonce;
    out["signatureTimestamp"] = callback.signature_timestamp_s;
    return out;
}

result<post_transaction_callback, uma_error> parse_post_transaction_callback(
    std::string_view json_text) {
    try {
        auto object = parse_object(json_text);
        json_fields fields(object);
        post_transaction_callback out;
        for (const auto& item : fields.required_array("utxos")) {
            if (!item.is_object()) throw field_error("utxos must hold objects");
            json_fields utxo(item.get_object(), "utxos[].");
            out.utxos.push_back({utxo.required_string("utxo"), utxo.required_int("amountMsats")});
        }
        out.vasp_domain = fields.required_string("vaspDomain");
        out.signature = fields.required_string("signature");
        out.signature_nonce = fields.required_string("signatureNonce");
        out.signature_timestamp_s = fields.required_int("signatureTimestamp");
        return out;
    } catch (const field_error& error) {
        return uma_error{error_kind::parse_utxo_callback_error, error.what(), {}};
    }
}

std::string signable_payload(const post_transaction_callback& callback) {
    return callback.signature_nonce + "|" + std::to_string(callback.signature_timestamp_s);
}

}  // namespace corridor::uma
