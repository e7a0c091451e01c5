#include "server/workers/rail_funding_source.hpp"

#include <boost/json/parse.hpp>

namespace corridor {
namespace json = boost::json;

namespace {

using answer_kind = funding_instruction_answer::kind;

// One rail's answer: not_served for UNSUPPORTED, so the next rail (or the configuration) is asked.
funding_instruction_answer ask(rail_instance& rail, const funding_instruction_request& request) {
    rail_funding_input input;
    input.environment = std::string(request.owner.env_name());
    input.account_id = request.account_id;
    input.currency = request.currency;
    input.reference = request.reference;
    input.amount_minor = request.amount_minor;
    input.now_ms = request.now_ms;
    auto called = rail.funding_instructions(input);
    funding_instruction_answer answer;
    if (called.status == rail_status::unsupported) return answer;
    if (!called.ok()) {
        answer.outcome = answer_kind::failed;
        answer.message =
            rail.name() + ": " + (called.message.empty() ? "no reason given" : called.message);
        return answer;
    }
    boost::system::error_code ec;
    json::value parsed = json::parse(called.result, ec);
    if (ec || !well_formed_instructions(parsed)) {
        answer.outcome = answer_kind::failed;
        answer.message = rail.name() + ": the instructions are not an array of paymentInstructions";
        return answer;
    }
    answer.outcome = answer_kind::served;
    answer.instructions = std::move(parsed.as_array());
    return answer;
}

}  // namespace

funding_instruction_answer rail_funding_source::instructions(
    const funding_instruction_request& request) {
    if (request.owner.env == environment::sandbox) {
        // A rail that simulates its own sandbox network answers for its currencies first (its
        // instructions can be paid from another Corridor's sandbox); then the sandbox rail serves
        // every sandbox tenant; without it, the configuration does.
        for (const auto& rail : rails_.all()) {
            if (rail->name() == rail_registry::sandbox_rail_name || !rail->serves_sandbox())
                continue;
            auto answer = ask(*rail, request);
            if (answer.outcome != answer_kind::not_served) return answer;
        }
        rail_instance* sandbox = rails_.by_name(std::string(rail_registry::sandbox_rail_name));
        if (sandbox == nullptr) return {};
        return ask(*sandbox, request);
    }
    for (const auto& rail : rails_.all()) {
        if (rail->name() == rail_registry::sandbox_rail_name) continue;
        auto answer = ask(*rail, request);
        if (answer.outcome != answer_kind::not_served) return answer;
    }
    return {};
}

}  // namespace corridor
