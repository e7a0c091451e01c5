#include "plugins/spark/payout_journal.hpp"

#include <boost/json.hpp>
#include <stdexcept>

namespace corridor::spark {
namespace json = boost::json;

namespace {

// A field the line must have, of the type asked; throws a message naming it.
const json::value& field(const json::object& line, std::string_view key) {
    const json::value* value = line.if_contains(key);
    if (value == nullptr) throw std::runtime_error("no " + std::string(key));
    return *value;
}

std::string text_field(const json::object& line, std::string_view key) {
    const json::value& value = field(line, key);
    if (!value.is_string()) throw std::runtime_error(std::string(key) + " is not a string");
    return std::string(value.as_string());
}

std::int64_t integer_field(const json::object& line, std::string_view key) {
    const json::value& value = field(line, key);
    if (!value.is_int64() && !value.is_uint64())
        throw std::runtime_error(std::string(key) + " is not an integer");
    boost::system::error_code error;
    auto number = value.to_number<std::int64_t>(error);
    if (error) throw std::runtime_error(std::string(key) + " is out of range");
    return number;
}

std::string_view route_name(payout_route route) {
    return route == payout_route::network ? "network" : "simulated";
}

payout_route route_of(const std::string& name) {
    if (name == "network") return payout_route::network;
    if (name == "simulated") return payout_route::simulated;
    throw std::runtime_error("route is neither network nor simulated");
}

payout_record started_of(const json::object& line) {
    payout_record record;
    record.operation_id = text_field(line, "id");
    record.account_type = text_field(line, "accountType");
    record.destination = text_field(line, "destination");
    record.amount_minor = integer_field(line, "amountMinor");
    std::int64_t msat = integer_field(line, "amountMsat");
    if (record.amount_minor <= 0 || msat <= 0)
        throw std::runtime_error("an amount is not positive");
    record.amount_msat = static_cast<std::uint64_t>(msat);
    record.reference = text_field(line, "reference");
    record.route = route_of(text_field(line, "route"));
    std::string pattern = text_field(line, "pattern");
    if (pattern.size() > 1 || (pattern.size() == 1 && (pattern[0] < '2' || pattern[0] > '5')))
        throw std::runtime_error("pattern is not a sandbox pattern");
    record.pattern = pattern.empty() ? 0 : pattern[0];
    record.started_at_ms = integer_field(line, "startedAtMs");
    if (record.operation_id.empty() || record.reference.empty())
        throw std::runtime_error("id or reference is empty");
    return record;
}

payout_outcome finished_of(const json::object& line) {
    payout_outcome outcome;
    std::string state = text_field(line, "outcome");
    if (state == "SETTLED")
        outcome.state = CORRIDOR_RAIL_OUTCOME_SETTLED;
    else if (state == "FAILED")
        outcome.state = CORRIDOR_RAIL_OUTCOME_FAILED;
    else
        throw std::runtime_error("outcome is neither SETTLED nor FAILED");
    std::int64_t failure = integer_field(line, "failure");
    if (failure < CORRIDOR_RAIL_FAILURE_NONE || failure > CORRIDOR_RAIL_FAILURE_RAIL_ERROR)
        throw std::runtime_error("failure is not a failure class");
    outcome.failure = static_cast<corridor_rail_failure>(failure);
    outcome.code = text_field(line, "code");
    outcome.reason = text_field(line, "reason");
    outcome.message = text_field(line, "message");
    return outcome;
}

std::string started_line(const payout_record& record) {
    return json::serialize(json::object{
        {"type", "started"},
        {"id", record.operation_id},
        {"accountType", record.account_type},
        {"destination", record.destination},
        {"amountMinor", record.amount_minor},
        {"amountMsat", record.amount_msat},
        {"reference", record.reference},
        {"route", route_name(record.route)},
        {"pattern", record.pattern == 0 ? std::string() : std::string(1, record.pattern)},
        {"startedAtMs", record.started_at_ms}});
}

std::string finished_line(const std::string& id, const payout_outcome& outcome) {
    return json::serialize(json::object{
        {"type", "finished"},
        {"id", id},
        {"outcome", outcome.state == CORRIDOR_RAIL_OUTCOME_SETTLED ? "SETTLED" : "FAILED"},
        {"failure", static_cast<std::int64_t>(outcome.failure)},
        {"code", outcome.code},
        {"reason", outcome.reason},
        {"message", outcome.message}});
}

}  // namespace

payout_journal::payout_journal(const std::filesystem::path& state_dir)
    : path_(state_dir / "payouts.log") {
    lock_ = std::make_unique<plugin_files::folder_lock>(state_dir);
    if (!lock_->held()) return;
    log_ = std::make_unique<plugin_files::line_log>(path_);
    cut_at_open_ = log_->cut_at_open();
    const auto& lines = log_->lines_at_open();
    for (std::size_t i = 0; i < lines.size(); ++i) apply(lines[i], i + 1);
}

void payout_journal::apply(const std::string& line, std::size_t number) {
    try {
        boost::system::error_code error;
        json::value parsed = json::parse(line, error);
        if (error || !parsed.is_object()) throw std::runtime_error("not a JSON object");
        const json::object& object = parsed.as_object();
        std::string type = text_field(object, "type");
        if (type == "started") {
            payout_record record = started_of(object);
            if (records_.contains(record.operation_id))
                throw std::runtime_error("operation " + record.operation_id + " started twice");
            records_.emplace(record.operation_id, std::move(record));
        } else if (type == "finished") {
            std::string id = text_field(object, "id");
            auto found = records_.find(id);
            if (found == records_.end())
                throw std::runtime_error("operation " + id + " finished but never started");
            if (found->second.outcome)
                throw std::runtime_error("operation " + id + " finished twice");
            found->second.outcome = finished_of(object);
        } else {
            throw std::runtime_error("type is neither started nor finished");
        }
    } catch (const std::runtime_error& damage) {
        throw std::runtime_error(path_.string() + " line " + std::to_string(number) +
                                 " is damaged (" + damage.what() +
                                 "); the rail will not guess which payouts it made");
    }
}

const payout_record* payout_journal::find(const std::string& operation_id) const {
    auto found = records_.find(operation_id);
    return found == records_.end() ? nullptr : &found->second;
}

void payout_journal::start(const payout_record& record) {
    if (!log_) throw std::runtime_error(path_.string() + " is written by another process");
    if (records_.contains(record.operation_id) || record.outcome)
        throw std::logic_error("payout_journal::start: a known operation or a finished record");
    log_->append(started_line(record));
    records_.emplace(record.operation_id, record);
}

void payout_journal::finish(const std::string& operation_id, const payout_outcome& outcome) {
    if (!log_) throw std::runtime_error(path_.string() + " is written by another process");
    auto found = records_.find(operation_id);
    if (found == records_.end() || found->second.outcome ||
        (outcome.state != CORRIDOR_RAIL_OUTCOME_SETTLED &&
         outcome.state != CORRIDOR_RAIL_OUTCOME_FAILED))
        throw std::logic_error("payout_journal::finish: not a started operation's final outcome");
    log_->append(finished_line(operation_id, outcome));
    found->second.outcome = outcome;
}

}  // namespace corridor::spark
