#pragma once
// NACHA origination files: file header, batches (PPD, CCD, WEB) of entry detail records with
// optional addenda 05, batch controls with entry hash and totals, the file control, and blocking
// to 10 with lines of 94 '9's. Every record is 94 characters followed by '\n'.
//
// The writer streams: each record goes to the sink as soon as it is complete, and only running
// totals are kept, so a file of any size needs constant memory. A batch declares up front whether
// it mixes credits and debits (service class 200) or holds only one kind (220/225); an entry of
// the other kind is refused rather than silently changing the header already written.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "plugins/ach/us_account.hpp"
#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::ach {

inline constexpr std::size_t record_length = 94;
inline constexpr std::uint64_t entry_amount_max_cents = 9'999'999'999;  // 10-digit field

enum class sec_code { ppd, ccd, web };
enum class entry_direction { credit, debit };
enum class service_class { mixed = 200, credits_only = 220, debits_only = 225 };

std::string_view sec_code_name(sec_code code);

// 22 checking credit, 27 checking debit, 32 savings credit, 37 savings debit.
int transaction_code(account_category category, entry_direction direction);

struct file_header_fields {
    std::string immediate_destination;   // 9-digit routing number of the receiving point
    std::string immediate_origin;        // 9-digit routing number or 10-digit company id
    std::string destination_name;        // up to 23 characters
    std::string origin_name;             // up to 23 characters
    std::string reference_code;          // optional, up to 8
    char file_id_modifier = 'A';         // A-Z or 0-9
    std::int64_t created_at_unix_s = 0;  // written as UTC YYMMDD HHMM
};

struct batch_fields {
    service_class mix = service_class::mixed;
    sec_code sec = sec_code::ppd;
    std::string company_name;           // up to 16
    std::string company_discretionary;  // up to 20
    std::string company_id;             // 10 characters, e.g. '1' + EIN
    std::string entry_description;      // up to 10, e.g. PAYROLL
    std::string descriptive_date;       // up to 6, e.g. SD1300 for same day
    std::string effective_entry_date;   // YYMMDD
    std::string odfi_routing;           // 9-digit routing number of the originating bank
};

struct entry_fields {
    entry_direction direction = entry_direction::credit;
    account_category category = account_category::checking;
    std::string rdfi_routing;    // 9-digit routing number of the receiver's bank
    std::string account_number;  // up to 17
    std::uint64_t amount_cents = 0;
    std::string individual_id;           // up to 15 (our reference)
    std::string individual_name;         // truncated to 22
    std::string payment_type;            // WEB only: "R" recurring or "S" single
    std::optional<std::string> addenda;  // addenda 05 payment information, up to 80
};

struct file_totals {
    std::uint64_t batch_count = 0;
    std::uint64_t block_count = 0;
    std::uint64_t entry_addenda_count = 0;
    std::uint64_t entry_hash = 0;
    std::uint64_t debit_total_cents = 0;
    std::uint64_t credit_total_cents = 0;
    std::uint64_t line_count = 0;  // filler included
};

class nacha_writer {
public:
    using sink = std::function<void(std::string_view line)>;

    // Validates the header and writes record 1. Trace sequences start at first_sequence (1 to
    // 9,999,999) and wrap after 9,999,999, so an originator that carries the sequence on from
    // file to file keeps trace numbers unique across files (a return names only the trace).
    static formats::outcome<nacha_writer> open(const file_header_fields& header, sink out,
                                               std::uint64_t first_sequence = 1);

    formats::verdict begin_batch(const batch_fields& batch);
    // Returns the entry's trace number (ODFI 8 digits + 7-digit sequence, unique in the file).
    formats::outcome<std::string> add_entry(const entry_fields& entry);
    formats::verdict end_batch();
    // Writes the file control and the filler; the writer takes nothing more afterwards.
    formats::outcome<file_totals> finish();
    // The trace sequence the next entry would get (where a following file should start).
    std::uint64_t next_sequence() const { return next_sequence_; }

private:
    struct batch_state {
        batch_fields fields;
        std::uint64_t number = 0;
        std::uint64_t entry_addenda_count = 0;
        std::uint64_t entry_hash = 0;
        std::uint64_t debit_total = 0;
        std::uint64_t credit_total = 0;
    };

    explicit nacha_writer(sink out) : out_(std::move(out)) {}
    void emit(const std::string& record);

    sink out_;
    std::optional<batch_state> batch_;
    file_totals totals_;
    std::uint64_t next_sequence_ = 1;
    std::uint64_t entries_written_ = 0;
    bool finished_ = false;
};

// Renders a whole file into a string; a convenience over nacha_writer for small files and tests.
struct batch_with_entries {
    batch_fields batch;
    std::vector<entry_fields> entries;
};
formats::outcome<std::string> write_nacha_file(const file_header_fields& header,
                                               const std::vector<batch_with_entries>& batches);

}  // namespace corridor::ach
