#pragma once
// Reading NACHA files: record structure (94-character lines, record order, blocking) and a strict
// check of what the controls claim (entry hash, counts, totals, block count, routing check digits,
// unique trace numbers). Used for return files from the bank and to verify our own output.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rails/rail_sdk/formats/result.hpp"

namespace corridor::ach {

struct nacha_addenda {
    std::string type_code;  // "05", "98", "99"...
    std::string record;     // the whole 94-character line
};

struct nacha_entry {
    int transaction_code = 0;
    std::string rdfi_routing;    // 9 digits: identification + check digit
    std::string account_number;  // trailing spaces removed
    std::uint64_t amount_cents = 0;
    std::string individual_id;
    std::string individual_name;
    std::string discretionary;
    bool addenda_indicator = false;
    std::string trace_number;
    std::vector<nacha_addenda> addenda;

    bool is_credit() const;  // ones digit 1-4 (moov's creditOrDebit rule)
};

struct nacha_batch {
    int service_class = 0;
    std::string company_name;
    std::string company_id;
    std::string sec_code;
    std::string entry_description;
    std::string effective_entry_date;
    std::string odfi_id;  // 8 digits
    std::uint64_t batch_number = 0;
    std::vector<nacha_entry> entries;
    // As written in the batch control record.
    int control_service_class = 0;
    std::uint64_t control_entry_addenda_count = 0;
    std::uint64_t control_entry_hash = 0;
    std::uint64_t control_debit_cents = 0;
    std::uint64_t control_credit_cents = 0;
    std::string control_company_id;
    std::string control_odfi_id;
    std::uint64_t control_batch_number = 0;
};

struct nacha_file {
    std::string immediate_destination;  // 10 characters as written
    std::string immediate_origin;
    std::string creation_date;  // YYMMDD
    std::string creation_time;  // HHMM
    char file_id_modifier = ' ';
    std::vector<nacha_batch> batches;
    std::uint64_t control_batch_count = 0;
    std::uint64_t control_block_count = 0;
    std::uint64_t control_entry_addenda_count = 0;
    std::uint64_t control_entry_hash = 0;
    std::uint64_t control_debit_cents = 0;
    std::uint64_t control_credit_cents = 0;
    std::uint64_t line_count = 0;  // filler lines included
};

// Structure only: every line 94 characters (a missing final newline and CRLF are accepted), records
// in the order 1 (5 (6 7*)* 8)* 9 then filler lines of '9's, numeric fields numeric.
formats::outcome<nacha_file> parse_nacha(std::string_view text);

// Recomputes what the controls claim and checks blocking and routing numbers; the first mismatch
// is named (e.g. "batch 2: entry hash 0046276020 written, 0046276021 computed").
formats::verdict check_nacha(const nacha_file& file);

}  // namespace corridor::ach
