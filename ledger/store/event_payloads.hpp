#pragma once
// Webhook event payloads at rest. A payload is stored compressed: outbox_events.payload holds the
// bytes of a zstd frame made with the dictionary ledger/store/event_payload_dictionary.json (format
// z1, about a fifth of the JSON's size; a BLOB on SQLite, a BYTEA on PostgreSQL), and is the same
// JSON again when read for delivery. Older rows read as they are stored: the JSON itself (before
// compression, starting with '{') and, on SQLite, "z1:" and the base64 of the frame (schema
// versions 32 to 37, a third larger than the bytes).
#include <string>
#include <string_view>

namespace corridor {

// What outbox_events.payload stores for the JSON object `json`: the frame's bytes (binary; bind
// them as a blob, or as event_payload_base64 for PostgreSQL's decode(..., 'base64')).
std::string pack_event_payload(std::string_view json);
// The base64 of stored bytes: how a statement passes them to PostgreSQL as text.
std::string event_payload_base64(std::string_view stored);
// The JSON object of a stored payload, in any of the forms above, or as PostgreSQL's text form of
// a BYTEA (\x and hex, as soci reads it). Throws std::runtime_error when a packed payload does
// not decode (a damaged row).
std::string unpack_event_payload(std::string_view stored);

// The dictionary of format z1, compiled in from ledger/store/event_payload_dictionary.json. Frozen:
// rows made with it must decode for as long as they are kept; a better dictionary is a new format.
std::string_view event_payload_dictionary();

}  // namespace corridor
