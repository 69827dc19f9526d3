"""The InterBBS league: boards that each run the door play the same sealed contest deals and
share one table kept by a hub, with no score a member board could forge.

- :mod:`door.league.signing` Ed25519 keys, and the signed envelope every message travels in
- :mod:`door.league.protocol` the messages, their limits, and a game replayed on its deal
- :mod:`door.league.hub` the hub's side: its API on the web port, each request checked
- :mod:`door.league.member` a member's side: contests and deals fetched, results sent in
  order, the table fetched
"""
