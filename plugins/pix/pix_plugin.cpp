// The PIX rail plugin (pix.so): PIX account validation (key by type, CPF/CNPJ tax id), BR Code
// funding instructions, and payouts identified by an EndToEndId. PIX is instant: a payout is
// reported PENDING with its EndToEndId when accepted and SETTLED on the next tick. PIX has no pull.
//
// The EndToEndId is the payment's identity at the central bank's SPI, so a payout sent twice
// with two ids would be paid twice: each operation's id is appended (and synced) to
// data_dir/state/end-to-end.log before initiate answers OK, and a known operation id (the host's
// retry after a restart) gets the same EndToEndId again. One process writes the folder; an
// instance that finds it locked moves no money.
//
// Config (JSON): ispb (8 digits, our participant), pix_key and pix_key_type (the key payers send
// to), tax_id (our CNPJ), merchant_name (at most 25), merchant_city (at most 15), data_dir (the
// rail's own folder; the host gives one).
#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugins/common/durable_files.hpp"
#include "plugins/common/plugin_json.hpp"
#include "plugins/common/random_bytes.hpp"
#include "plugins/pix/br_code.hpp"
#include "plugins/pix/end_to_end_id.hpp"
#include "plugins/pix/pix_key.hpp"
#include "plugins/pix/tax_id.hpp"
#include "rails/plugin_sdk.hpp"

namespace sdk = corridor::rail_sdk;
using namespace corridor::pix;
using corridor::plugin_json::optional_string;
using corridor::plugin_json::required_string;

namespace {

struct pix_account {
    std::string key;
    std::string key_type;  // as given: CPF, CNPJ, EMAIL, PHONE, RANDOM
    std::string tax_id;
};

// Errors name the field; where is "" for accountInfo and "pix config: " for the config.
pix_account read_account(const boost::json::object& object, const std::string& where,
                         const char* key_field, const char* type_field, const char* tax_field) {
    pix_account account;
    account.key = required_string(object, key_field, where);
    account.key_type = required_string(object, type_field, where);
    account.tax_id = required_string(object, tax_field, where);
    auto type = parse_pix_key_type(account.key_type);
    if (!type) throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, where + type.error().message);
    if (auto verdict = check_pix_key(type.value(), account.key); !verdict)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + key_field + ": " + verdict.error().message);
    if (auto kind = check_tax_id(account.tax_id); !kind)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + tax_field + ": " + kind.error().message);
    // A CPF or CNPJ key is the account holder's own tax id (DICT rule), so it must be taxId.
    bool tax_id_key = type.value() == pix_key_type::cpf || type.value() == pix_key_type::cnpj;
    if (tax_id_key && account.key != account.tax_id)
        throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT,
                              where + key_field + ": a " + account.key_type +
                                  " key is the holder's own tax id, which differs from " +
                                  tax_field);
    return account;
}

class pix_rail final : public sdk::rail {
public:
    static constexpr std::string_view name = "pix";
    static constexpr std::string_view version = "1.1.0";
    static constexpr std::array<std::string_view, 1> account_types{"PIX"};
    static constexpr uint32_t tick_interval_ms = 1000;
    // PIX has no pull: payers send to our key (the funding instructions).
    static constexpr uint32_t capabilities = CORRIDOR_RAIL_CAN_PAYOUT;

    pix_rail(const sdk::host& host, std::string_view config_json) : host_(host) {
        auto config = corridor::plugin_json::parse_object(config_json, "the pix rail's config");
        const std::string where = "pix config: ";
        ispb_ = required_string(config, "ispb", where);
        if (ispb_.size() != 8 || ispb_.find_first_not_of("0123456789") != std::string::npos)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, where + "ispb has 8 digits");
        service_ = read_account(config, where, "pix_key", "pix_key_type", "tax_id");
        merchant_name_ = required_string(config, "merchant_name", where);
        merchant_city_ = required_string(config, "merchant_city", where);
        br_code probe = code_for(0, "");
        if (auto built = build_br_code(probe); !built)
            throw sdk::rail_error(CORRIDOR_RAIL_INVALID_ARGUMENT, where + built.error().message);
        open_state(std::filesystem::path(required_string(config, "data_dir", where)) / "state");
    }

    sdk::status validate_account(sdk::call& c, std::string_view type, std::string_view currency,
                                 std::string_view json) override {
        if (type != "PIX")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the pix rail serves PIX accounts");
        if (!currency.empty() && currency != "BRL")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the pix rail moves BRL only");
        auto object = corridor::plugin_json::parse_object(json, "accountInfo");
        pix_account account = read_account(object, "", "pixKey", "pixKeyType", "taxId");
        c.set_result(boost::json::serialize(boost::json::object{{"accountType", "PIX"},
                                                                {"pixKey", account.key},
                                                                {"pixKeyType", account.key_type},
                                                                {"taxId", account.tax_id}}));
        return CORRIDOR_RAIL_OK;
    }

    sdk::status funding_instructions(sdk::call& c, const sdk::funding_request& request) override {
        if (request.currency != "BRL")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the pix rail funds BRL accounts only");
        if (request.amount_minor < 0)
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "amount is negative");
        auto payload = build_br_code(code_for(request.amount_minor, request.reference));
        if (!payload) return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, payload.error().message);
        boost::json::object info{{"accountType", "PIX"},
                                 {"pixKey", service_.key},
                                 {"pixKeyType", service_.key_type},
                                 {"taxId", service_.tax_id},
                                 {"brCode", payload.value()}};
        c.set_result(corridor::plugin_json::funding_instructions(
            std::move(info), "Pay the BR Code (Pix copia e cola) or send to the PIX key.", false));
        return CORRIDOR_RAIL_OK;
    }

    sdk::status initiate(sdk::call& c, const sdk::operation& op) override {
        if (log_ == nullptr)
            return c.fail(CORRIDOR_RAIL_UNAVAILABLE,
                          "the PIX state folder is in use by another process");
        std::string id(op.operation_id);
        if (auto known = end_to_end_.find(id); known != end_to_end_.end()) {
            // A retry: the same EndToEndId, and SPI's answer again on the next tick.
            host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        known->second, ""});
            if (std::find(pending_.begin(), pending_.end(), id) == pending_.end())
                pending_.push_back(id);
            return CORRIDOR_RAIL_OK;
        }
        if (op.account_type != "PIX")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the pix rail serves PIX accounts");
        if (op.direction != CORRIDOR_RAIL_PAYOUT)
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "PIX cannot pull from an account");
        if (op.currency != "BRL")
            return c.fail(CORRIDOR_RAIL_UNSUPPORTED, "the pix rail moves BRL only");
        if (op.amount_minor <= 0)
            return c.fail(CORRIDOR_RAIL_INVALID_ARGUMENT, "amount must be positive");
        auto object = corridor::plugin_json::parse_object(op.account_json, "accountInfo");
        read_account(object, "", "pixKey", "pixKeyType", "taxId");
        auto e2e = make_end_to_end_id(ispb_, op.now_ms, corridor::plugin_random::fill);
        if (!e2e) return c.fail(CORRIDOR_RAIL_INTERNAL, e2e.error().message);
        try {
            log_->append(boost::json::serialize(
                boost::json::object{{"id", id}, {"end_to_end_id", e2e.value()}}));
        } catch (const std::exception& error) {
            host_.log(CORRIDOR_RAIL_LOG_ERROR, error.what());
            return c.fail(CORRIDOR_RAIL_UNAVAILABLE, "the PIX state cannot be written now");
        }
        end_to_end_[id] = e2e.value();
        pending_.push_back(id);
        host_.send({CORRIDOR_RAIL_OUTCOME_PENDING, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                    e2e.value(), ""});
        return CORRIDOR_RAIL_OK;
    }

    sdk::status tick(sdk::call& c, int64_t now_ms) override {
        for (const auto& id : pending_)
            host_.send({CORRIDOR_RAIL_OUTCOME_SETTLED, id, CORRIDOR_RAIL_FAILURE_NONE, "", "",
                        end_to_end_[id], ""});
        pending_.clear();
        return CORRIDOR_RAIL_OK;
    }

private:
    // Takes the folder's lock and reads back every EndToEndId given so far.
    void open_state(const std::filesystem::path& state_dir) {
        try {
            lock_ = std::make_unique<corridor::plugin_files::folder_lock>(state_dir);
            if (!lock_->held()) {
                host_.log(CORRIDOR_RAIL_LOG_WARN,
                          "the state folder " + state_dir.string() +
                              " is in use by another process: this instance moves no money");
                return;
            }
            log_ = std::make_unique<corridor::plugin_files::line_log>(state_dir / "end-to-end.log");
            for (const auto& line : log_->lines_at_open()) {
                auto object = corridor::plugin_json::parse_object(line, "end-to-end.log line");
                end_to_end_[required_string(object, "id", "end-to-end.log: ")] =
                    required_string(object, "end_to_end_id", "end-to-end.log: ");
            }
        } catch (const std::exception& error) {
            throw sdk::rail_error(CORRIDOR_RAIL_INTERNAL, std::string("pix: ") + error.what());
        }
    }

    // txid: the reference's letters and digits, at most 25, or *** when none is left.
    br_code code_for(std::int64_t amount_minor, std::string_view reference) const {
        br_code code;
        code.pix_key = service_.key;
        code.merchant_name = merchant_name_;
        code.merchant_city = merchant_city_;
        if (amount_minor > 0) code.amount_cents = static_cast<std::uint64_t>(amount_minor);
        std::string txid;
        for (char c : reference)
            if (txid.size() < 25 &&
                ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                txid += c;
        code.txid = txid.empty() ? "***" : txid;
        return code;
    }

    sdk::host host_;
    std::string ispb_;
    pix_account service_;
    std::string merchant_name_;
    std::string merchant_city_;
    std::unique_ptr<corridor::plugin_files::folder_lock> lock_;
    std::unique_ptr<corridor::plugin_files::line_log> log_;  // null when another process writes
    std::map<std::string, std::string> end_to_end_;          // operation id -> EndToEndId
    std::vector<std::string> pending_;
};

}  // namespace

CORRIDOR_RAIL_PLUGIN(pix_rail)
