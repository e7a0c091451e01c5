#pragma once
// Webhook event payloads at rest. A payload is stored compressed (outbox_events.payload holds
// "z1:" and the base64 of a zstd frame made with the dictionary
// ledger/store/event_payload_dictionary.json, about a quarter of the JSON's size) and is the same JSON
// again when read for delivery. Rows written before compression (the JSON itself, starting with
// '{') read as they are.
#include <string>
#include <string_view>

namespace corridor {

// What outbox_events.payload stores for the JSON object `json`.
std::string pack_event_payload(std::string_view json);
// The JSON object of a stored payload (packed or not). Throws std::runtime_error when a packed
// payload does not decode (a damaged row).
std::string unpack_event_payload(std::string_view stored);

// The dictionary of format z1, compiled in from ledger/store/event_payload_dictionary.json. Frozen: rows
// made with it must decode for as long as they are kept; a better dictionary is a new format.
std::string_view event_payload_dictionary();

}  // namespace corridor
