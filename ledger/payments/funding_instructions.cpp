#include "ledger/payments/funding_instructions.hpp"

#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace corridor {
namespace json = boost::json;

funding_directory funding_directory::from_json(std::string_view text) {
    boost::system::error_code ec;
    json::value document = json::parse(text, ec);
    if (ec || !document.is_object())
        throw std::runtime_error("funding: expected an object by currency");
    funding_directory directory;
    for (const auto& [code, value] : document.as_object()) {
        if (code == "sample") {
            if (!value.is_bool()) throw std::runtime_error("funding: \"sample\" must be true or false");
            directory.sample_ = value.as_bool();
            continue;
        }
        if (!value.is_object() || !value.as_object().contains("accountType")) {
            throw std::runtime_error("funding: " + std::string(code) +
                                     " needs an object with accountType");
        }
        directory.details_[std::string(code)] = value.as_object();
    }
    return directory;
}

funding_directory funding_directory::load_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read funding file " + path);
    std::stringstream text;
    text << in.rdbuf();
    return from_json(text.str());
}

json::array funding_directory::instructions(const std::string& currency,
                                            const std::string& reference,
                                            const std::string& notes) const {
    auto found = details_.find(currency);
    if (found == details_.end()) return {};
    json::object info = found->second;
    info["reference"] = reference;
    return json::array{json::object{{"accountOrWalletInfo", std::move(info)},
                                    {"instructionsNotes", notes},
                                    {"isPlatformAccount", true}}};
}

bool well_formed_instructions(const json::value& value) {
    if (!value.is_array() || value.as_array().empty()) return false;
    for (const auto& entry : value.as_array()) {
        if (!entry.is_object()) return false;
        const auto* info = entry.as_object().if_contains("accountOrWalletInfo");
        if (info == nullptr || !info->is_object()) return false;
        const auto* type = info->as_object().if_contains("accountType");
        if (type == nullptr || !type->is_string() || type->as_string().empty()) return false;
    }
    return true;
}

namespace {

// A rail's entries with the ledger's reference and notes: the reference is how a deposit finds
// what it funds, so it is the ledger's, whatever the rail echoed.
json::array with_reference_and_notes(json::array entries, const std::string& reference,
                                     const std::string& notes) {
    for (auto& entry : entries) {
        auto& object = entry.as_object();
        object["accountOrWalletInfo"].as_object()["reference"] = reference;
        std::string combined = notes;
        if (const auto* own = object.if_contains("instructionsNotes");
            own != nullptr && own->is_string() && !own->as_string().empty()) {
            combined += ". " + std::string(own->as_string());
        }
        object["instructionsNotes"] = combined;
        if (!object.contains("isPlatformAccount")) object["isPlatformAccount"] = true;
    }
    return entries;
}

}  // namespace

funding_instructions_result select_funding_instructions(funding_instruction_source* source,
                                                        const funding_directory& fallback,
                                                        const funding_instruction_request& request,
                                                        const std::string& notes) {
    if (source != nullptr) {
        auto answer = source->instructions(request);
        switch (answer.outcome) {
            case funding_instruction_answer::kind::served:
                if (well_formed_instructions(answer.instructions)) {
                    return {with_reference_and_notes(std::move(answer.instructions),
                                                     request.reference, notes),
                            ""};
                }
                return {{},
                        "the rail serving " + request.currency +
                            " gave ill-formed funding instructions"};
            case funding_instruction_answer::kind::failed:
                return {{},
                        "the rail serving " + request.currency +
                            " could not give funding instructions: " + answer.message};
            case funding_instruction_answer::kind::not_served: break;
        }
    }
    if (fallback.has(request.currency)) {
        return {fallback.instructions(request.currency, request.reference, notes), ""};
    }
    return {{}, "no funding instructions are configured for " + request.currency};
}

}  // namespace corridor
