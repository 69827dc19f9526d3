"""A linked board: a BBS whose callers come to the door over RLOGIN, as sysop.toml's
``[[rlogin.boards]]`` names it (:mod:`door.config`) and the RLOGIN way admits its calls
(:mod:`door.net.rlogin`)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class LinkedBoard:
    """A board whose callers come over RLOGIN: its tag (sent as ``[tag]alias``), the name
    its callers are kept under, the networks it may connect from, the shared secret, and how
    many of its callers may be on at once (``max_calls``; None: as many as there are nodes).
    A board's calls are not counted against its address's ``max_per_address``: a door
    network's hub sends all its callers from one address."""

    tag: str
    name: str
    addresses: tuple[IpNetwork, ...]
    secret: str = field(repr=False)
    max_calls: int | None = None

    def admits(self, address: str) -> bool:
        """Whether a connection from ``address`` may come from this board."""
        try:
            peer = ipaddress.ip_address(address.split("%")[0])
        except ValueError:
            return False
        if isinstance(peer, ipaddress.IPv6Address) and peer.ipv4_mapped is not None:
            peer = peer.ipv4_mapped
        return any(peer in network for network in self.addresses)
