#pragma once
// Which addresses outbound requests (webhooks, UMA lookups) may reach when the operator has not set
// outbound.allow_private_addresses: publicly routable unicast only. Everything an attacker could
// use to reach the service's own network is refused: private, loopback, link-local (cloud metadata
// at 169.254.169.254), carrier-grade NAT, unique-local, multicast, reserved and unspecified ranges,
// and IPv6 forms that embed such an IPv4 address.
#include <boost/asio/ip/address.hpp>
#include <cstdint>
#include <span>

namespace corridor {

// bytes: 4 (IPv4) or 16 (IPv6), network order.
bool is_public_address(std::span<const std::uint8_t> bytes);

// The same rule for a resolved address; both outbound clients judge every endpoint with it.
bool is_public_address(const boost::asio::ip::address& address);

}  // namespace corridor
