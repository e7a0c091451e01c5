#pragma once
// Where the payment instructions of internal accounts and REALTIME_FUNDING quotes come from: the
// rail that serves the currency in the tenant's environment, and the configured bank details
// (conf/funding.json) when no rail serves it. The ledger knows rails only through
// funding_instruction_source, which the server implements with its rail registry.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/tenant.hpp"

namespace corridor {

// Bank details, per currency, that incoming funds are sent to when no rail supplies them: the
// accountOrWalletInfo of payment instructions, without the reference.
class funding_directory {
public:
    static funding_directory from_json(std::string_view text);  // throws std::runtime_error
    static funding_directory load_file(const std::string& path);
    // [{accountOrWalletInfo: {..., reference}, instructionsNotes, isPlatformAccount}] or empty.
    boost::json::array instructions(const std::string& currency, const std::string& reference,
                                    const std::string& notes) const;
    bool has(const std::string& currency) const { return details_.contains(currency); }
    bool empty() const { return details_.empty(); }
    // The file says "sample": true: illustrative details, fit for the sandbox only.
    bool sample() const { return sample_; }

private:
    std::map<std::string, boost::json::object> details_;
    bool sample_ = false;
};

struct funding_instruction_request {
    tenant owner;
    std::string account_id;  // the internal account, or the quote, being funded
    std::string currency;
    std::string reference;          // what the payer must quote
    std::int64_t amount_minor = 0;  // 0: any amount
    std::int64_t now_ms = 0;
};

// What a source answered: the instructions, or that nothing serves the currency (the caller falls
// back to the configured details), or that the serving rail failed (message says why).
struct funding_instruction_answer {
    enum class kind { served, not_served, failed };
    kind outcome = kind::not_served;
    boost::json::array instructions;  // served: a non-empty array of instruction objects
    std::string message;              // failed
};

class funding_instruction_source {
public:
    virtual ~funding_instruction_source() = default;
    // May be called from any thread; the implementation serialises what needs it.
    virtual funding_instruction_answer instructions(const funding_instruction_request& request) = 0;
};

// The instructions for one funding target, in the interface's paymentInstructions shape. Every
// entry carries the reference in accountOrWalletInfo.reference (how a deposit is reconciled) and
// `notes` at the start of instructionsNotes (a rail's own notes follow). Empty when neither the
// source (may be null) nor the directory serves the currency, or when the serving rail failed.
struct funding_instructions_result {
    boost::json::array instructions;
    std::string problem;  // why it is empty, for an error message
};
funding_instructions_result select_funding_instructions(funding_instruction_source* source,
                                                        const funding_directory& fallback,
                                                        const funding_instruction_request& request,
                                                        const std::string& notes);

// True when a rail's answer is a non-empty array of objects, each with an accountOrWalletInfo
// object that names its accountType.
bool well_formed_instructions(const boost::json::value& value);

}  // namespace corridor
