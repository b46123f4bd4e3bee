"""Where a URL that a tenant supplied may lead the server.

Tenants give Engram URLs it then calls: webhook validators in a policy, and their
own LLM endpoint in their settings. Without a rule, a tenant could aim the server
at its own loopback services, the cloud metadata endpoint or anything else on the
private network. The rule here, applied to every such request:

- the scheme must be one the operator allows (`outbound_schemes`, default http and
  https);
- every address the host resolves to must be globally routable (no loopback,
  private, link-local, shared, multicast, reserved or unspecified addresses),
  unless the operator allows that host name, address or network
  (`outbound_allow`: comma-separated host names, IP addresses and CIDRs). An IPv6
  address that carries an IPv4 address (IPv4-mapped, IPv4-compatible, SIIT,
  NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is judged by that IPv4 address, and the
  local-use NAT64 prefix `64:ff9b:1::/48` is never public;
- the connection goes to the address that was checked (the URL's host is pinned
  to it, the original name kept for the Host header and TLS), so a DNS answer
  that changes between the check and the connection cannot slip past;
- redirects are never followed (the clients that use this transport refuse them).

Endpoints the operator configures (the server-wide LLM and embedding settings) are
trusted and do not go through this guard.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from engram_server.platform.config import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


class EgressRefused(httpx.TransportError):
    """A request to a target the egress rule forbids; nothing was sent."""

    # Its text is written for the tenant (it names no address the tenant did not
    # give): webhook failures pass it on rather than a generic kind.
    shown_to_caller = True


@dataclass(frozen=True)
class EgressPolicy:
    schemes: frozenset[str]
    allowed_hosts: frozenset[str]
    allowed_networks: tuple[IPNetwork, ...]

    @classmethod
    def from_settings(cls, settings: Settings) -> EgressPolicy:
        return cls.parse(settings.outbound_allow, settings.outbound_schemes)

    @classmethod
    def parse(cls, allow: str, schemes: str = "https,http") -> EgressPolicy:
        """`allow`: comma-separated host names, addresses and CIDRs."""
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for entry in (part.strip() for part in allow.split(",")):
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(entry.lower().rstrip("."))
        return cls(
            schemes=frozenset(s.strip().lower() for s in schemes.split(",") if s.strip()),
            allowed_hosts=frozenset(hosts),
            allowed_networks=tuple(networks),
        )

    def refusal(self, url: str) -> str | None:
        """Why `url` can never be called (scheme, or a forbidden literal address);
        None when it may be, subject to what its host name resolves to."""
        try:
            parts = urlsplit(url)
            hostname = parts.hostname
        except ValueError:  # "[::1" or "[not-an-address]": no request could be made
            return "not a valid URL"
        if parts.scheme.lower() not in self.schemes:
            return f"scheme must be one of {', '.join(sorted(self.schemes))}"
        host = (hostname or "").lower().rstrip(".")
        if not host:
            return "the URL has no host"
        if host in self.allowed_hosts:
            return None
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return None  # a name: decided when it is resolved
        return None if self.address_allowed(address) else _FORBIDDEN

    def address_allowed(self, address: IPAddress) -> bool:
        if any(address in network for network in self.allowed_networks):
            return True
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                # A dual-stack socket connects to the IPv4 address itself.
                return self.address_allowed(address.ipv4_mapped)
            if address in _LOCAL_NAT64:
                return False
            embedded = embedded_ipv4(address)
            if embedded is not None:
                # Translated or tunnelled to that IPv4 address: public only if it
                # is (Python's is_global counts these prefixes public whatever
                # they carry). The operator's allowances name what is reached
                # directly, so an allowed IPv4 network does not cover them.
                return _public(embedded)
        return _public(address)

    async def pinned_address(self, host: str, port: int) -> str | None:
        """The address to connect to for `host`, every resolved address checked;
        None when `host` is an allowed name (connect to it as it is)."""
        name = host.lower().rstrip(".")
        if name in self.allowed_hosts:
            return None
        try:
            literal = ipaddress.ip_address(name.strip("[]"))
        except ValueError:
            literal = None
        if literal is not None:
            if not self.address_allowed(literal):
                raise EgressRefused(_FORBIDDEN)
            return str(literal)
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(name, port, type=socket.SOCK_STREAM)
        except OSError as exc:
            raise EgressRefused(f"cannot resolve {host!r}") from exc
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
        if not addresses or not all(self.address_allowed(a) for a in addresses):
            raise EgressRefused(_FORBIDDEN)
        return str(addresses[0])


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")  # RFC 6052 well-known prefix
_LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")  # RFC 8215, a network's own
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")  # RFC 3056
_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")  # RFC 2765 SIIT
_COMPATIBLE = ipaddress.IPv6Network("::/96")  # RFC 4291 (deprecated), :: and ::1 too


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries by its prefix: NAT64, 6to4, SIIT
    or IPv4-compatible (IPv4-mapped is `ipv4_mapped`); None for any other."""
    if address in _NAT64 or address in _TRANSLATED or address in _COMPATIBLE:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _SIX_TO_FOUR:
        return address.sixtofour
    return None


def _public(address: IPAddress) -> bool:
    return address.is_global and not address.is_multicast


_FORBIDDEN = (
    "the target address is not allowed (loopback, private, link-local and other"
    " non-public addresses need the server setting outbound_allow)"
)


class GuardedTransport(httpx.AsyncBaseTransport):
    """An HTTP transport that only connects where `policy` allows."""

    def __init__(self, policy: EgressPolicy, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._policy = policy
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if url.scheme not in self._policy.schemes:
            raise EgressRefused(f"scheme must be one of {', '.join(sorted(self._policy.schemes))}")
        port = url.port or (443 if url.scheme == "https" else 80)
        pinned = await self._policy.pinned_address(url.host, port)
        if pinned is not None and pinned != url.host:
            # Connect to the checked address; the Host header (already set from the
            # original URL) and the TLS server name keep the name.
            request.url = url.copy_with(host=pinned)
            request.extensions = {**request.extensions, "sni_hostname": url.host}
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()
