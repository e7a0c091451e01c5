#include "plugins/ach/nacha_writer.hpp"

#include <ctime>
#include <tuple>

#include "rails/rail_sdk/formats/text.hpp"

namespace corridor::ach {
namespace {

using formats::make_error;

constexpr std::uint64_t hash_modulus = 10'000'000'000;  // the entry hash keeps 10 digits
constexpr std::uint64_t total_max_cents = 999'999'999'999;
constexpr std::uint64_t sequence_max = 9'999'999;
// The block count field has 6 digits, so a file has at most 9,999,990 lines before its filler.
constexpr std::uint64_t line_max = 9'999'990;

// NACHA alphanumeric fields take printable ASCII only.
bool printable(std::string_view text) {
    for (char c : text)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e)
            return false;
    return true;
}

// Left-justified, space-padded, cut to width.
void put_text(std::string& record, std::string_view text, std::size_t width) {
    std::size_t used = std::min(text.size(), width);
    record.append(text.substr(0, used));
    record.append(width - used, ' ');
}

// Right-justified, zero-padded; callers check that the value fits.
void put_number(std::string& record, std::uint64_t value, std::size_t width) {
    char digits[24];
    std::size_t count = 0;
    do {
        digits[count++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < width);
    record.append(width - count, '0');
    while (count > 0) record.push_back(digits[--count]);
}

formats::verdict check_text(std::string_view text, std::size_t width, const char* name,
                            bool may_truncate) {
    if (!printable(text))
        return make_error("bad_character", std::string(name) + " has non-printable characters");
    if (!may_truncate && text.size() > width)
        return make_error("too_long", std::string(name) + " is longer than " +
                                          std::to_string(width) + " characters");
    return formats::valid;
}

formats::verdict check_routing(std::string_view routing, const char* name) {
    if (auto verdict = check_routing_number(routing); !verdict)
        return make_error(verdict.error().code, std::string(name) + ": " + verdict.error().message);
    return formats::valid;
}

bool valid_yymmdd(std::string_view date) {
    if (date.size() != 6 || !formats::all_digits(date)) return false;
    int month = (date[2] - '0') * 10 + (date[3] - '0');
    int day = (date[4] - '0') * 10 + (date[5] - '0');
    return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

formats::verdict check_header(const file_header_fields& header) {
    if (auto verdict = check_routing(header.immediate_destination, "immediate destination");
        !verdict)
        return verdict;
    std::string_view origin = header.immediate_origin;
    if (!((origin.size() == 9 || origin.size() == 10) && formats::all_digits(origin)))
        return make_error("bad_origin", "immediate origin is 9 or 10 digits");
    if (!(formats::is_upper(header.file_id_modifier) || formats::is_digit(header.file_id_modifier)))
        return make_error("bad_file_id_modifier", "file id modifier is A-Z or 0-9");
    for (auto [text, width, name] : {std::tuple{&header.destination_name, 23, "destination name"},
                                     std::tuple{&header.origin_name, 23, "origin name"},
                                     std::tuple{&header.reference_code, 8, "reference code"}})
        if (auto verdict = check_text(*text, static_cast<std::size_t>(width), name, false);
            !verdict)
            return verdict;
    if (header.created_at_unix_s < 0) return make_error("bad_time", "creation time is negative");
    return formats::valid;
}

formats::verdict check_batch(const batch_fields& batch) {
    if (auto verdict = check_routing(batch.odfi_routing, "ODFI routing number"); !verdict)
        return verdict;
    if (batch.company_id.size() != 10 || !printable(batch.company_id))
        return make_error("bad_company_id", "company identification has 10 characters");
    if (!valid_yymmdd(batch.effective_entry_date))
        return make_error("bad_effective_date", "effective entry date is YYMMDD");
    for (auto [text, width, name] :
         {std::tuple{&batch.company_name, 16, "company name"},
          std::tuple{&batch.company_discretionary, 20, "company discretionary data"},
          std::tuple{&batch.entry_description, 10, "company entry description"},
          std::tuple{&batch.descriptive_date, 6, "company descriptive date"}})
        if (auto verdict = check_text(*text, static_cast<std::size_t>(width), name, false);
            !verdict)
            return verdict;
    if (batch.company_name.empty() || batch.entry_description.empty())
        return make_error("missing_field", "company name and entry description are required");
    return formats::valid;
}

formats::verdict check_entry(const entry_fields& entry, const batch_fields& batch) {
    if (auto verdict = check_routing(entry.rdfi_routing, "RDFI routing number"); !verdict)
        return verdict;
    if (auto verdict = check_account_number(entry.account_number); !verdict)
        return make_error(verdict.error().code, "account number: " + verdict.error().message);
    if (entry.amount_cents > entry_amount_max_cents)
        return make_error("amount_too_large", "an entry amount is at most 99,999,999.99");
    if (entry.amount_cents == 0)
        return make_error("zero_amount",
                          "an entry amount must be positive (prenotes are not "
                          "written by this writer)");
    bool is_credit = entry.direction == entry_direction::credit;
    if ((batch.mix == service_class::credits_only && !is_credit) ||
        (batch.mix == service_class::debits_only && is_credit))
        return make_error("wrong_direction", "the batch was opened for one direction only");
    if (batch.sec == sec_code::web) {
        if (entry.payment_type != "R" && entry.payment_type != "S")
            return make_error("bad_payment_type", "a WEB entry has payment type R or S");
        if (is_credit)
            return make_error("wrong_direction", "this writer uses WEB for consumer debits only");
    } else if (!entry.payment_type.empty()) {
        return make_error("bad_payment_type", "only WEB entries carry a payment type");
    }
    if (auto verdict = check_text(entry.individual_id, 15, "individual id", false); !verdict)
        return verdict;
    if (auto verdict = check_text(entry.individual_name, 22, "individual name", true); !verdict)
        return verdict;
    if (entry.individual_name.empty())
        return make_error("missing_field", "individual (receiver) name is required");
    if (entry.addenda)
        if (auto verdict = check_text(*entry.addenda, 80, "addenda", false); !verdict)
            return verdict;
    return formats::valid;
}

std::string utc_stamp(std::int64_t unix_s, const char* format) {
    std::time_t time = static_cast<std::time_t>(unix_s);
    std::tm parts{};
    gmtime_r(&time, &parts);
    char text[16];
    std::strftime(text, sizeof text, format, &parts);
    return text;
}

std::uint64_t odfi_id(std::string_view routing) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i)
        value = value * 10 + static_cast<std::uint64_t>(routing[i] - '0');
    return value;
}

}  // namespace

std::string_view sec_code_name(sec_code code) {
    switch (code) {
        case sec_code::ppd: return "PPD";
        case sec_code::ccd: return "CCD";
        case sec_code::web: return "WEB";
    }
    return "PPD";
}

int transaction_code(account_category category, entry_direction direction) {
    int tens = category == account_category::checking ? 20 : 30;
    return tens + (direction == entry_direction::credit ? 2 : 7);
}

void nacha_writer::emit(const std::string& record) {
    out_(record);
    ++totals_.line_count;
}

formats::outcome<nacha_writer> nacha_writer::open(const file_header_fields& header, sink out,
                                                  std::uint64_t first_sequence) {
    if (auto verdict = check_header(header); !verdict) return verdict.error();
    if (first_sequence < 1 || first_sequence > sequence_max)
        return make_error("bad_sequence", "the first trace sequence is 1 to 9,999,999");
    nacha_writer writer(std::move(out));
    writer.next_sequence_ = first_sequence;
    std::string record;
    record.reserve(record_length + 1);
    record += "101 ";
    record += header.immediate_destination;
    if (header.immediate_origin.size() == 9) record += ' ';
    record += header.immediate_origin;
    record += utc_stamp(header.created_at_unix_s, "%y%m%d%H%M");
    record += header.file_id_modifier;
    record += "094101";
    put_text(record, header.destination_name, 23);
    put_text(record, header.origin_name, 23);
    put_text(record, header.reference_code, 8);
    record += '\n';
    writer.emit(record);
    return writer;
}

formats::verdict nacha_writer::begin_batch(const batch_fields& batch) {
    if (finished_) return make_error("finished", "the file is already finished");
    if (batch_) return make_error("batch_open", "the previous batch is still open");
    if (auto verdict = check_batch(batch); !verdict) return verdict;
    if (totals_.batch_count >= 999'999)
        return make_error("too_many_batches", "a file has at most 999,999 batches");
    // Room for this header, its control and the file control.
    if (totals_.line_count + 3 > line_max)
        return make_error("file_too_large", "the file would exceed 999,999 blocks");
    batch_state state;
    state.fields = batch;
    state.number = ++totals_.batch_count;
    std::string record;
    record.reserve(record_length + 1);
    record += '5';
    put_number(record, static_cast<std::uint64_t>(batch.mix), 3);
    put_text(record, batch.company_name, 16);
    put_text(record, batch.company_discretionary, 20);
    put_text(record, batch.company_id, 10);
    record += sec_code_name(batch.sec);
    put_text(record, batch.entry_description, 10);
    put_text(record, batch.descriptive_date, 6);
    record += batch.effective_entry_date;
    record += "   1";  // settlement date is the operator's; status 1 = depository institution
    record.append(batch.odfi_routing, 0, 8);
    put_number(record, state.number, 7);
    record += '\n';
    emit(record);
    batch_ = std::move(state);
    return formats::valid;
}

formats::outcome<std::string> nacha_writer::add_entry(const entry_fields& entry) {
    if (!batch_) return make_error("no_batch", "an entry needs an open batch");
    if (auto verdict = check_entry(entry, batch_->fields); !verdict) return verdict.error();
    if (entries_written_ >= sequence_max)
        return make_error("too_many_entries", "a file has at most 9,999,999 entries");
    bool is_credit = entry.direction == entry_direction::credit;
    std::uint64_t& total = is_credit ? batch_->credit_total : batch_->debit_total;
    if (total + entry.amount_cents > total_max_cents)
        return make_error("total_too_large", "a batch total would exceed 12 digits");
    std::uint64_t added_records = entry.addenda ? 2 : 1;
    if (batch_->entry_addenda_count + added_records > 999'999)
        return make_error("batch_too_large", "a batch has at most 999,999 entries and addenda");
    if (totals_.line_count + added_records + 2 > line_max)
        return make_error("file_too_large", "the file would exceed 999,999 blocks");

    std::string trace;
    trace.reserve(15);
    trace.append(batch_->fields.odfi_routing, 0, 8);
    put_number(trace, next_sequence_, 7);
    next_sequence_ = next_sequence_ == sequence_max ? 1 : next_sequence_ + 1;
    ++entries_written_;

    std::string record;
    record.reserve(2 * (record_length + 1));
    record += '6';
    put_number(record,
               static_cast<std::uint64_t>(transaction_code(entry.category, entry.direction)), 2);
    record += entry.rdfi_routing;
    put_text(record, entry.account_number, 17);
    put_number(record, entry.amount_cents, 10);
    put_text(record, entry.individual_id, 15);
    put_text(record, entry.individual_name, 22);
    put_text(record, entry.payment_type, 2);
    record += entry.addenda ? '1' : '0';
    record += trace;
    record += '\n';
    if (entry.addenda) {
        record += "705";
        put_text(record, *entry.addenda, 80);
        record += "0001";
        record.append(trace, 8, 7);
        record += '\n';
    }
    out_(record);
    totals_.line_count += added_records;

    total += entry.amount_cents;
    batch_->entry_addenda_count += added_records;
    batch_->entry_hash = (batch_->entry_hash + odfi_id(entry.rdfi_routing)) % hash_modulus;
    return trace;
}

formats::verdict nacha_writer::end_batch() {
    if (!batch_) return make_error("no_batch", "no batch is open");
    if (batch_->entry_addenda_count == 0)
        return make_error("empty_batch", "a batch needs at least one entry");
    const batch_state& batch = *batch_;
    if (totals_.debit_total_cents + batch.debit_total > total_max_cents ||
        totals_.credit_total_cents + batch.credit_total > total_max_cents)
        return make_error("total_too_large", "a file total would exceed 12 digits");
    std::string record;
    record.reserve(record_length + 1);
    record += '8';
    put_number(record, static_cast<std::uint64_t>(batch.fields.mix), 3);
    put_number(record, batch.entry_addenda_count, 6);
    put_number(record, batch.entry_hash, 10);
    put_number(record, batch.debit_total, 12);
    put_number(record, batch.credit_total, 12);
    put_text(record, batch.fields.company_id, 10);
    record.append(19 + 6, ' ');  // message authentication code and reserved
    record.append(batch.fields.odfi_routing, 0, 8);
    put_number(record, batch.number, 7);
    record += '\n';
    emit(record);
    totals_.entry_addenda_count += batch.entry_addenda_count;
    totals_.entry_hash = (totals_.entry_hash + batch.entry_hash) % hash_modulus;
    totals_.debit_total_cents += batch.debit_total;
    totals_.credit_total_cents += batch.credit_total;
    batch_.reset();
    return formats::valid;
}

formats::outcome<file_totals> nacha_writer::finish() {
    if (finished_) return make_error("finished", "the file is already finished");
    if (batch_) return make_error("batch_open", "close the open batch before finishing");
    finished_ = true;
    std::uint64_t lines = totals_.line_count + 1;
    totals_.block_count = (lines + 9) / 10;
    std::string record;
    record.reserve(record_length + 1);
    record += '9';
    put_number(record, totals_.batch_count, 6);
    put_number(record, totals_.block_count, 6);
    put_number(record, totals_.entry_addenda_count, 8);
    put_number(record, totals_.entry_hash, 10);
    put_number(record, totals_.debit_total_cents, 12);
    put_number(record, totals_.credit_total_cents, 12);
    record.append(39, ' ');
    record += '\n';
    emit(record);
    const std::string filler = std::string(record_length, '9') + '\n';
    while (totals_.line_count % 10 != 0) emit(filler);
    return totals_;
}

formats::outcome<std::string> write_nacha_file(const file_header_fields& header,
                                               const std::vector<batch_with_entries>& batches) {
    std::string text;
    auto writer = nacha_writer::open(header, [&text](std::string_view line) { text += line; });
    if (!writer) return writer.error();
    for (const auto& batch : batches) {
        if (auto verdict = writer->begin_batch(batch.batch); !verdict) return verdict.error();
        for (const auto& entry : batch.entries)
            if (auto trace = writer->add_entry(entry); !trace) return trace.error();
        if (auto verdict = writer->end_batch(); !verdict) return verdict.error();
    }
    auto totals = writer->finish();
    if (!totals) return totals.error();
    return text;
}

}  // namespace corridor::ach
