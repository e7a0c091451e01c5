#include "plugins/ach/nacha_reader.hpp"

#include <unordered_set>

#include "plugins/ach/nacha_writer.hpp"
#include "plugins/ach/us_account.hpp"
#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::ach {
namespace {

using formats::make_error;

std::string_view field(std::string_view line, std::size_t first, std::size_t last) {
    return line.substr(first - 1, last - first + 1);  // 1-based inclusive, as in the layouts
}

std::string trimmed(std::string_view text) {
    std::size_t end = text.find_last_not_of(' ');
    std::size_t begin = text.find_first_not_of(' ');
    if (end == std::string_view::npos) return {};
    return std::string(text.substr(begin, end - begin + 1));
}

class line_error {
public:
    explicit line_error(std::size_t line) : line_(line) {}
    formats::format_error operator()(std::string code, const std::string& message) const {
        return make_error(std::move(code), "line " + std::to_string(line_) + ": " + message);
    }

private:
    std::size_t line_;
};

bool number(std::string_view text, std::uint64_t& out) {
    if (!formats::all_digits(text)) return false;
    out = 0;
    for (char c : text) out = out * 10 + static_cast<std::uint64_t>(c - '0');
    return true;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        start = end + 1;
    }
    return lines;
}

class parser {
public:
    formats::outcome<nacha_file> run(std::string_view text) {
        auto lines = split_lines(text);
        if (lines.empty()) return make_error("empty_file", "the file is empty");
        for (std::size_t i = 0; i < lines.size(); ++i) {
            line_error error(i + 1);
            std::string_view line = lines[i];
            if (line.size() != record_length)
                return error("bad_line_length",
                             "has " + std::to_string(line.size()) + " characters instead of 94");
            auto verdict = read(line, error);
            if (!verdict) return verdict.error();
        }
        if (state_ != state::after_file_control)
            return make_error("missing_file_control", "the file has no file control record");
        file_.line_count = lines.size();
        return std::move(file_);
    }

private:
    enum class state { start, between_batches, in_batch, after_file_control };

    formats::verdict read(std::string_view line, const line_error& error) {
        char type = line[0];
        if (state_ == state::after_file_control) {
            if (line.find_first_not_of('9') != std::string_view::npos)
                return error("record_after_file_control",
                             "only filler may follow the file control");
            return formats::valid;
        }
        switch (type) {
            case '1': return file_header(line, error);
            case '5': return batch_header(line, error);
            case '6': return entry(line, error);
            case '7': return addenda(line, error);
            case '8': return batch_control(line, error);
            case '9': return file_control(line, error);
            default: return error("unknown_record", std::string("record type '") + type + "'");
        }
    }

    formats::verdict file_header(std::string_view line, const line_error& error) {
        if (state_ != state::start) return error("unexpected_record", "a second file header");
        if (field(line, 35, 40) != "094101")
            return error("bad_file_header",
                         "record size, blocking factor and format must be 094101");
        file_.immediate_destination = std::string(field(line, 4, 13));
        file_.immediate_origin = std::string(field(line, 14, 23));
        file_.creation_date = std::string(field(line, 24, 29));
        file_.creation_time = std::string(field(line, 30, 33));
        file_.file_id_modifier = line[33];
        state_ = state::between_batches;
        return formats::valid;
    }

    formats::verdict batch_header(std::string_view line, const line_error& error) {
        if (state_ != state::between_batches)
            return error("unexpected_record", "a batch header outside the place for one");
        nacha_batch batch;
        std::uint64_t service = 0;
        if (!number(field(line, 2, 4), service) || !number(field(line, 88, 94), batch.batch_number))
            return error("bad_batch_header", "service class and batch number are numeric");
        batch.service_class = static_cast<int>(service);
        batch.company_name = trimmed(field(line, 5, 20));
        batch.company_id = std::string(field(line, 41, 50));
        batch.sec_code = std::string(field(line, 51, 53));
        batch.entry_description = trimmed(field(line, 54, 63));
        batch.effective_entry_date = std::string(field(line, 70, 75));
        batch.odfi_id = std::string(field(line, 80, 87));
        file_.batches.push_back(std::move(batch));
        state_ = state::in_batch;
        return formats::valid;
    }

    formats::verdict entry(std::string_view line, const line_error& error) {
        if (state_ != state::in_batch)
            return error("unexpected_record", "an entry outside a batch");
        nacha_entry entry;
        std::uint64_t code = 0;
        if (!number(field(line, 2, 3), code) || !number(field(line, 30, 39), entry.amount_cents) ||
            !formats::all_digits(field(line, 4, 12)))
            return error("bad_entry", "transaction code, RDFI routing and amount are numeric");
        entry.transaction_code = static_cast<int>(code);
        entry.rdfi_routing = std::string(field(line, 4, 12));
        entry.account_number = trimmed(field(line, 13, 29));
        entry.individual_id = trimmed(field(line, 40, 54));
        entry.individual_name = trimmed(field(line, 55, 76));
        entry.discretionary = std::string(field(line, 77, 78));
        char indicator = line[78];
        if (indicator != '0' && indicator != '1')
            return error("bad_entry", "the addenda indicator is 0 or 1");
        entry.addenda_indicator = indicator == '1';
        entry.trace_number = std::string(field(line, 80, 94));
        file_.batches.back().entries.push_back(std::move(entry));
        return formats::valid;
    }

    formats::verdict addenda(std::string_view line, const line_error& error) {
        if (state_ != state::in_batch || file_.batches.back().entries.empty())
            return error("unexpected_record", "an addenda record without an entry");
        nacha_entry& owner = file_.batches.back().entries.back();
        if (!owner.addenda_indicator)
            return error("unexpected_addenda", "the entry's addenda indicator is 0");
        owner.addenda.push_back({std::string(field(line, 2, 3)), std::string(line)});
        return formats::valid;
    }

    formats::verdict batch_control(std::string_view line, const line_error& error) {
        if (state_ != state::in_batch)
            return error("unexpected_record", "a batch control without a batch");
        nacha_batch& batch = file_.batches.back();
        std::uint64_t service = 0;
        if (!number(field(line, 2, 4), service) ||
            !number(field(line, 5, 10), batch.control_entry_addenda_count) ||
            !number(field(line, 11, 20), batch.control_entry_hash) ||
            !number(field(line, 21, 32), batch.control_debit_cents) ||
            !number(field(line, 33, 44), batch.control_credit_cents) ||
            !number(field(line, 88, 94), batch.control_batch_number))
            return error("bad_batch_control", "counts, hash and totals are numeric");
        batch.control_service_class = static_cast<int>(service);
        batch.control_company_id = std::string(field(line, 45, 54));
        batch.control_odfi_id = std::string(field(line, 80, 87));
        state_ = state::between_batches;
        return formats::valid;
    }

    formats::verdict file_control(std::string_view line, const line_error& error) {
        if (state_ != state::between_batches)
            return error("unexpected_record",
                         "the file control comes after the last batch control");
        if (!number(field(line, 2, 7), file_.control_batch_count) ||
            !number(field(line, 8, 13), file_.control_block_count) ||
            !number(field(line, 14, 21), file_.control_entry_addenda_count) ||
            !number(field(line, 22, 31), file_.control_entry_hash) ||
            !number(field(line, 32, 43), file_.control_debit_cents) ||
            !number(field(line, 44, 55), file_.control_credit_cents))
            return error("bad_file_control", "counts, hash and totals are numeric");
        state_ = state::after_file_control;
        return formats::valid;
    }

    nacha_file file_;
    state state_ = state::start;
};

std::string padded(std::uint64_t value, std::size_t width) {
    std::string digits = std::to_string(value);
    if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
    return digits;
}

formats::format_error mismatch(const std::string& where, const char* what, std::uint64_t written,
                               std::uint64_t computed) {
    return make_error("control_mismatch", where + ": " + what + " " + std::to_string(written) +
                                              " written, " + std::to_string(computed) +
                                              " computed");
}

formats::verdict check_batch(const nacha_batch& batch, std::size_t index,
                             std::unordered_set<std::string>& traces) {
    std::string where = "batch " + std::to_string(index + 1);
    std::uint64_t records = 0, hash = 0, debit = 0, credit = 0;
    for (const auto& entry : batch.entries) {
        if (auto verdict = check_routing_number(entry.rdfi_routing); !verdict)
            return make_error(verdict.error().code, where + ": entry " + entry.trace_number + ": " +
                                                        verdict.error().message);
        if (!traces.insert(entry.trace_number).second)
            return make_error("duplicate_trace",
                              where + ": trace number " + entry.trace_number + " appears twice");
        if (entry.addenda_indicator && entry.addenda.empty())
            return make_error("missing_addenda", where + ": entry " + entry.trace_number +
                                                     " announces an addenda that is missing");
        records += 1 + entry.addenda.size();
        hash += std::stoull(entry.rdfi_routing.substr(0, 8));
        (entry.is_credit() ? credit : debit) += entry.amount_cents;
    }
    hash %= 10'000'000'000ull;
    if (batch.entries.empty()) return make_error("empty_batch", where + ": has no entries");
    if (batch.control_service_class != batch.service_class)
        return mismatch(where, "service class",
                        static_cast<std::uint64_t>(batch.control_service_class),
                        static_cast<std::uint64_t>(batch.service_class));
    if (batch.control_batch_number != batch.batch_number)
        return mismatch(where, "batch number", batch.control_batch_number, batch.batch_number);
    // Compared without padding: moov-io/ach right-justifies the id in the control record.
    if (trimmed(batch.control_company_id) != trimmed(batch.company_id) ||
        batch.control_odfi_id != batch.odfi_id)
        return make_error("control_mismatch",
                          where + ": company id or ODFI differs between header and control");
    if (batch.control_entry_addenda_count != records)
        return mismatch(where, "entry/addenda count", batch.control_entry_addenda_count, records);
    if (batch.control_entry_hash != hash)
        return mismatch(where, "entry hash", batch.control_entry_hash, hash);
    if (batch.control_debit_cents != debit)
        return mismatch(where, "debit total", batch.control_debit_cents, debit);
    if (batch.control_credit_cents != credit)
        return mismatch(where, "credit total", batch.control_credit_cents, credit);
    if ((batch.service_class == 220 && debit != 0) || (batch.service_class == 225 && credit != 0))
        return make_error("wrong_direction", where + ": entries contradict service class " +
                                                 std::to_string(batch.service_class));
    return formats::valid;
}

}  // namespace

bool nacha_entry::is_credit() const {
    int ones = transaction_code % 10;
    return ones >= 1 && ones <= 4;
}

formats::outcome<nacha_file> parse_nacha(std::string_view text) {
    return parser{}.run(text);
}

formats::verdict check_nacha(const nacha_file& file) {
    std::unordered_set<std::string> traces;
    std::uint64_t records = 0, hash = 0, debit = 0, credit = 0;
    for (std::size_t i = 0; i < file.batches.size(); ++i) {
        const nacha_batch& batch = file.batches[i];
        if (auto verdict = check_batch(batch, i, traces); !verdict) return verdict;
        records += batch.control_entry_addenda_count;
        hash = (hash + batch.control_entry_hash) % 10'000'000'000ull;
        debit += batch.control_debit_cents;
        credit += batch.control_credit_cents;
    }
    const std::string where = "file control";
    if (file.control_batch_count != file.batches.size())
        return mismatch(where, "batch count", file.control_batch_count, file.batches.size());
    if (file.control_entry_addenda_count != records)
        return mismatch(where, "entry/addenda count", file.control_entry_addenda_count, records);
    if (file.control_entry_hash != hash)
        return make_error("control_mismatch", where + ": entry hash " +
                                                  padded(file.control_entry_hash, 10) +
                                                  " written, " + padded(hash, 10) + " computed");
    if (file.control_debit_cents != debit)
        return mismatch(where, "debit total", file.control_debit_cents, debit);
    if (file.control_credit_cents != credit)
        return mismatch(where, "credit total", file.control_credit_cents, credit);
    if (file.line_count % 10 != 0)
        return make_error("bad_blocking", "the file has " + std::to_string(file.line_count) +
                                              " lines, not a multiple of 10");
    if (file.control_block_count != file.line_count / 10)
        return mismatch(where, "block count", file.control_block_count, file.line_count / 10);
    return formats::valid;
}

}  // namespace corridor::ach
