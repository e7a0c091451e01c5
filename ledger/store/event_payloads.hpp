#pragma once
// Webhook event payloads at rest. A payload is stored compressed: outbox_events.payload holds the
// bytes of a zstd frame (a BLOB on SQLite, a BYTEA on PostgreSQL) made with a dictionary compiled
// into the binary, and is the same JSON again when read for delivery. Format z2, what is written:
// the trained dictionary ledger/store/event_payload_dictionary_z2.zdict, named by its id (2) in
// every frame, about a sixth of the JSON's size. Older rows read as they are stored: frames of
// format z1 (the raw-content dictionary ledger/store/event_payload_dictionary.json, no id in the
// frame, about a fifth), on SQLite "z1:" and the base64 of such a frame (schema versions 32 to 37,
// a third larger than the bytes), and the JSON itself (before compression, starting with '{').
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

// The dictionaries of formats z1 and z2, compiled in from their files. Frozen: rows made with one
// must decode for as long as they are kept; a better dictionary is a new format (a new id).
std::string_view event_payload_dictionary();
std::string_view event_payload_dictionary_z2();

}  // namespace corridor
