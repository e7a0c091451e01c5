#pragma once
// Events handed to this process's webhook delivery at the commit that wrote them, so that no claim
// round stands between a commit and its deliveries. While delivery has room, an event is inserted
// already leased to this process (attempt 1 counted, claim token this process's, due again only
// when the lease runs out), and after the commit its id goes to delivery in memory, which reads
// the committed row back (on a connection other than the writer's) and sends it. Nothing is
// marked delivered until the attempt is recorded, so at least once holds: if this process dies
// first, another process (or this one restarted) claims the event when its lease runs out, as it
// would any claim of a process that died. An event of an environment without an endpoint is
// written closed (NO_ENDPOINT) and never leased.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace corridor {

// Delivery's side. `token`: this process's claim token for handed-over events; `lease_ms`: their
// lease; `receive`: called after each commit with the ids of the events it leased (on the
// committing thread; keep it short). An empty `receive` stops handing over.
void set_outbox_handover(std::string token, std::int64_t lease_ms,
                         std::function<void(std::vector<std::string>)> receive);
// How many more events delivery can take now: events are leased only within this room.
void set_outbox_handover_room(std::int64_t room);

// The insert's side. For one event about to be inserted: the claim token to insert it with (empty:
// not leased, due at once as before) and the lease's end. Takes one unit of room and remembers the
// id for the commit when it leases.
struct outbox_lease {
    std::string token;  // empty: not leased
    long long until_ms = 0;
};
// Events of a tenant that delivery found without an endpoint are not leased until `until_ms`
// (they are written closed anyway; this only spares delivery reading them back).
outbox_lease lease_for_handover(const std::string& event_id, const std::string& platform_id,
                                const std::string& environment, long long now_ms);
void skip_handover_for(const std::string& platform_id, const std::string& environment,
                       long long until_ms);

}  // namespace corridor
