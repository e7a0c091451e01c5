#pragma once
// Resource ids are "<Type>:<uuid v7>": time-ordered, so keyset pagination by id follows creation.
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"

namespace corridor {

class id_generator {
public:
    id_generator(const clock& clock, random_source& random) : clock_(clock), random_(random) {}
    // A new uuid v7 (RFC 9562), monotonic within this process: the 12-bit rand_a field counts
    // ids made in the same millisecond, so ids never sort before their predecessors.
    std::string next_uuid();
    // "<type>:<uuid>", built in one string (a payment makes about ten ids on the ledger writer).
    std::string next(std::string_view type);

private:
    void append_uuid(std::string& out);
    const clock& clock_;
    random_source& random_;
    std::mutex mutex_;
    std::int64_t last_ms_ = 0;
    std::uint16_t sequence_ = 0;
};

// The least id of `type` an id_generator could make at `ms`: a whole uuid, its first 48 bits the
// time and the rest zero. Ids made before `ms` sort below it (as text, and as the 16 bytes of
// packed_id), ids made at or after `ms` do not, so a range of the primary key finds the rows made
// before a time.
std::string first_id_at(std::string_view type, std::int64_t ms);

bool is_uuid(std::string_view text);
// The uuid of "<type>:<uuid>" (a bare uuid as it is), unchecked.
std::string_view uuid_part(std::string_view id);

// Ids stored as 16 bytes (the postings' own and transaction ids, migration 46): the uuid of
// "<type>:<uuid>" (or of a bare uuid), its type implied by the column. False when `typed` holds no
// uuid after its colon.
bool pack_id(std::string_view typed, unsigned char (&out)[16]);
// "<type>:<uuid>" of 16 stored bytes, the uuid in lower-case text.
std::string unpack_id(std::string_view type, const unsigned char* bytes);
// True when text is "<type>:<uuid>".
bool is_typed_id(std::string_view type, std::string_view text);
// True when text is "<type>:<uuid>" as ids are made, the uuid in lower-case hex: the only text a
// lookup of an id stored as 16 bytes can match as it matched the stored text. Checked before
// packed_id() sees an id from a request (PostgreSQL's raises on text that is no id, and an
// upper-case uuid would find the row its text never matched).
bool is_made_id(std::string_view type, std::string_view text);

}  // namespace corridor
