#include "plugins/ach/ach_spool.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <stdexcept>

namespace corridor::ach {
namespace fs = std::filesystem;
namespace json = boost::json;
using plugin_files::line_log;

namespace {

std::string text_of(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || !value->is_string())
        throw std::runtime_error("ach state: \"" + std::string(key) + "\" is missing");
    return std::string(value->as_string());
}

std::int64_t number_of(const json::object& object, std::string_view key) {
    const json::value* value = object.if_contains(key);
    if (value == nullptr || !(value->is_int64() || value->is_uint64()))
        throw std::runtime_error("ach state: \"" + std::string(key) + "\" is missing");
    return value->to_number<std::int64_t>();
}

json::object parse_line(std::string_view line, const fs::path& where) {
    boost::system::error_code error;
    json::value value = json::parse(line, error);
    if (error || !value.is_object())
        throw std::runtime_error("ach state: a damaged line in " + where.string());
    return std::move(value.as_object());
}

std::string outcome_json(const final_outcome& o) {
    return json::serialize(json::object{{"id", o.operation_id},
                                        {"outcome", o.outcome},
                                        {"failure", o.failure},
                                        {"code", o.rail_reason_code},
                                        {"reason", o.failure_reason},
                                        {"reference", o.rail_reference},
                                        {"message", o.message}});
}

std::string manifest_json(const sent_file& file) {
    json::array entries;
    for (const auto& e : file.entries)
        entries.push_back(json::object{{"id", e.operation_id}, {"trace", e.trace}});
    return json::serialize(json::object{{"file", file.file_name},
                                        {"number", file.number},
                                        {"settlement_ms", file.settlement_ms},
                                        {"next_sequence", file.next_sequence},
                                        {"entries", std::move(entries)}});
}

sent_file manifest_from_json(std::string_view text, const fs::path& where) {
    json::object object = parse_line(text, where);
    sent_file file;
    file.file_name = text_of(object, "file");
    file.number = static_cast<std::uint64_t>(number_of(object, "number"));
    file.settlement_ms = number_of(object, "settlement_ms");
    file.next_sequence = static_cast<std::uint64_t>(number_of(object, "next_sequence"));
    const json::value* entries = object.if_contains("entries");
    if (entries == nullptr || !entries->is_array())
        throw std::runtime_error("ach state: no entries in " + where.string());
    for (const auto& item : entries->as_array()) {
        if (!item.is_object())
            throw std::runtime_error("ach state: a bad entry in " + where.string());
        file.entries.push_back(
            {text_of(item.as_object(), "id"), text_of(item.as_object(), "trace")});
    }
    return file;
}

}  // namespace

std::string spooled_entry_json(const spooled_entry& s) {
    const entry_fields& e = s.entry;
    json::object object{{"id", s.operation_id},
                        {"queued_at_ms", s.queued_at_ms},
                        {"credit", e.direction == entry_direction::credit},
                        {"savings", e.category == account_category::savings},
                        {"routing", e.rdfi_routing},
                        {"account", e.account_number},
                        {"amount_cents", e.amount_cents},
                        {"individual_id", e.individual_id},
                        {"individual_name", e.individual_name},
                        {"payment_type", e.payment_type}};
    if (e.addenda) object["addenda"] = *e.addenda;
    return json::serialize(object);
}

spooled_entry spooled_entry_from_json(std::string_view line) {
    json::object object = parse_line(line, "spool.log");
    spooled_entry s;
    s.operation_id = text_of(object, "id");
    s.queued_at_ms = number_of(object, "queued_at_ms");
    auto flag = [&](std::string_view key) {
        const json::value* value = object.if_contains(key);
        if (value == nullptr || !value->is_bool())
            throw std::runtime_error("ach state: \"" + std::string(key) + "\" is missing");
        return value->as_bool();
    };
    entry_fields& e = s.entry;
    e.direction = flag("credit") ? entry_direction::credit : entry_direction::debit;
    e.category = flag("savings") ? account_category::savings : account_category::checking;
    e.rdfi_routing = text_of(object, "routing");
    e.account_number = text_of(object, "account");
    std::int64_t amount = number_of(object, "amount_cents");
    if (amount <= 0) throw std::runtime_error("ach state: a bad amount in spool.log");
    e.amount_cents = static_cast<std::uint64_t>(amount);
    e.individual_id = text_of(object, "individual_id");
    e.individual_name = text_of(object, "individual_name");
    e.payment_type = text_of(object, "payment_type");
    if (object.contains("addenda")) e.addenda = text_of(object, "addenda");
    return s;
}

ach_spool::ach_spool(fs::path state_dir, fs::path outbox_dir)
    : state_dir_(std::move(state_dir)), outbox_dir_(std::move(outbox_dir)) {
    fs::create_directories(state_dir_ / "files");
    fs::create_directories(outbox_dir_);
    lock_ = std::make_unique<plugin_files::folder_lock>(state_dir_);
    if (!lock_->held()) return;  // read-only: another process writes this folder
    recover();
    load_outcomes();
    load_spool();
}

// Manifests first: they say which files were committed; then the outbox is made to agree.
void ach_spool::recover() {
    std::vector<fs::path> manifests;
    for (const auto& item : fs::directory_iterator(state_dir_ / "files")) {
        const fs::path& path = item.path();
        if (path.extension() == ".tmp") {
            fs::remove(path);  // a manifest never committed
        } else if (path.extension() == ".json") {
            manifests.push_back(path);
        }
    }
    std::sort(manifests.begin(), manifests.end());
    for (const auto& path : manifests) {
        sent_file file = manifest_from_json(plugin_files::read_whole_file(path), path);
        for (const auto& e : file.entries) {
            sent_[e.operation_id] = {files_.size(), e.trace};
            operation_of_trace_[e.trace] = e.operation_id;
        }
        files_.push_back(std::move(file));
        finish_rename(files_.back().file_name);
    }
    // A temporary the outbox still holds belongs to no committed file: its entries are spooled.
    for (const auto& item : fs::directory_iterator(outbox_dir_)) {
        if (item.path().extension() == ".tmp") fs::remove(item.path());
    }
    plugin_files::sync_folder(outbox_dir_);
}

void ach_spool::finish_rename(const std::string& file_name) {
    fs::path final_path = outbox_dir_ / file_name;
    fs::path temporary = final_path;
    temporary += ".tmp";
    // Neither is there once the bank's transfer has picked the file up: nothing to do.
    if (fs::exists(final_path) || !fs::exists(temporary)) return;
    fs::rename(temporary, final_path);
    plugin_files::sync_folder(outbox_dir_);
}

void ach_spool::load_outcomes() {
    outcomes_log_ = std::make_unique<line_log>(state_dir_ / "outcomes.log");
    for (const auto& line : outcomes_log_->lines_at_open()) {
        json::object object = parse_line(line, outcomes_log_->path());
        final_outcome o;
        o.operation_id = text_of(object, "id");
        o.outcome = static_cast<std::int32_t>(number_of(object, "outcome"));
        o.failure = static_cast<std::int32_t>(number_of(object, "failure"));
        o.rail_reason_code = text_of(object, "code");
        o.failure_reason = text_of(object, "reason");
        o.rail_reference = text_of(object, "reference");
        o.message = text_of(object, "message");
        outcomes_[o.operation_id] = std::move(o);
    }
}

void ach_spool::load_spool() {
    log_ = std::make_unique<line_log>(state_dir_ / "spool.log");
    bool settled_elsewhere = false;
    for (const auto& line : log_->lines_at_open()) {
        spooled_entry entry = spooled_entry_from_json(line);
        if (sent_.count(entry.operation_id) || outcomes_.count(entry.operation_id)) {
            settled_elsewhere = true;  // a crash between a file's commit and the spool's rewrite
            continue;
        }
        spooled_.emplace(entry.operation_id, std::move(entry));
    }
    if (settled_elsewhere) rewrite_spool();
}

void ach_spool::rewrite_spool() {
    std::vector<std::string> lines;
    for (const auto& [id, entry] : spooled_) lines.push_back(spooled_entry_json(entry));
    log_->rewrite(lines);
}

const spooled_entry* ach_spool::find_spooled(const std::string& operation_id) const {
    auto found = spooled_.find(operation_id);
    return found == spooled_.end() ? nullptr : &found->second;
}

std::optional<std::pair<const sent_file*, std::string>> ach_spool::find_sent(
    const std::string& operation_id) const {
    auto found = sent_.find(operation_id);
    if (found == sent_.end()) return std::nullopt;
    return std::make_pair(&files_[found->second.first], found->second.second);
}

std::string ach_spool::operation_of_trace(const std::string& trace) const {
    auto found = operation_of_trace_.find(trace);
    return found == operation_of_trace_.end() ? std::string() : found->second;
}

const final_outcome* ach_spool::find_outcome(const std::string& operation_id) const {
    auto found = outcomes_.find(operation_id);
    return found == outcomes_.end() ? nullptr : &found->second;
}

void ach_spool::add(const spooled_entry& entry) {
    if (!writable()) throw std::runtime_error("the ACH state folder is read-only here");
    if (spooled_.count(entry.operation_id) || sent_.count(entry.operation_id))
        throw std::logic_error("operation " + entry.operation_id + " is already spooled");
    log_->append(spooled_entry_json(entry));
    spooled_.emplace(entry.operation_id, entry);
}

void ach_spool::commit_file(sent_file manifest, std::string_view nacha_text,
                            std::uint64_t next_sequence) {
    if (!writable()) throw std::runtime_error("the ACH state folder is read-only here");
    for (const auto& e : manifest.entries) {
        if (sent_.count(e.operation_id))
            throw std::logic_error("operation " + e.operation_id + " is already in a file");
    }
    const sent_file* last = last_committed();
    manifest.number = last == nullptr ? 1 : last->number + 1;
    manifest.next_sequence = next_sequence;
    fs::path temporary = outbox_dir_ / manifest.file_name;
    temporary += ".tmp";
    // The text itself first, whole and synced, under a name the bank's transfer ignores.
    plugin_files::write_whole_file(temporary, nacha_text);
    fs::path manifest_path = state_dir_ / "files" / (manifest.file_name + ".json");
    plugin_files::write_whole_file(manifest_path, manifest_json(manifest));  // the commit point
    for (const auto& e : manifest.entries) {
        sent_[e.operation_id] = {files_.size(), e.trace};
        operation_of_trace_[e.trace] = e.operation_id;
        spooled_.erase(e.operation_id);
    }
    for (const auto& [id, outcome] : outcomes_) spooled_.erase(id);
    files_.push_back(manifest);
    unfinished_renames_.push_back(manifest.file_name);
    finish_pending();
    rewrite_spool();
}

void ach_spool::finish_pending() {
    while (!unfinished_renames_.empty()) {
        finish_rename(unfinished_renames_.back());
        unfinished_renames_.pop_back();
    }
}

void ach_spool::record_outcome(const final_outcome& outcome) {
    if (!writable()) throw std::runtime_error("the ACH state folder is read-only here");
    outcomes_log_->append(outcome_json(outcome));
    outcomes_[outcome.operation_id] = outcome;
    spooled_.erase(outcome.operation_id);  // the spool file loses it at its next rewrite
}

std::size_t ach_spool::files_of_day(const std::string& date) const {
    std::size_t committed = 0, in_outbox = 0;
    for (const auto& file : files_)
        if (file.file_name.rfind(date, 0) == 0) ++committed;
    for (const auto& item : fs::directory_iterator(outbox_dir_)) {
        std::string name = item.path().filename().string();
        if (name.rfind(date, 0) == 0 && item.path().extension() == ".ach") ++in_outbox;
    }
    return std::max(committed, in_outbox);
}

const sent_file* ach_spool::last_committed() const {
    const sent_file* last = nullptr;
    for (const auto& file : files_)
        if (last == nullptr || file.number > last->number) last = &file;
    return last;
}

std::uint64_t ach_spool::next_trace_sequence() const {
    const sent_file* last = last_committed();
    return last == nullptr ? 1 : last->next_sequence;
}

}  // namespace corridor::ach
