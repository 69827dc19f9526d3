"""The pinned xterm.js the web page draws its terminal with: versions, files, hashes.

By default the page loads these files from a public CDN (jsDelivr serves npm packages byte
for byte), each with its Subresource Integrity hash, so a browser runs exactly the pinned
file or nothing. A sysop whose callers reach nothing beyond the board names a folder of their
own copy in ``[web] assets``, laid out as npm installs the packages under ``@xterm``::

    npm install --prefix /srv/canfield/web @xterm/xterm@6.0.0 @xterm/addon-fit@0.11.0
    # [web] assets = "/srv/canfield/web/node_modules/@xterm"

>>> [asset.path for asset in ASSETS]
['xterm/lib/xterm.js', 'xterm/css/xterm.css', 'addon-fit/lib/addon-fit.js']
>>> ASSETS[0].url
'https://cdn.jsdelivr.net/npm/@xterm/xterm@6.0.0/lib/xterm.js'
"""

from __future__ import annotations

from dataclasses import dataclass

CDN = "https://cdn.jsdelivr.net/npm"
XTERM_VERSION = "6.0.0"
FIT_VERSION = "0.11.0"
PACKAGES = (f"@xterm/xterm@{XTERM_VERSION}", f"@xterm/addon-fit@{FIT_VERSION}")


@dataclass(frozen=True, slots=True)
class Asset:
    """One file of an npm package under ``@xterm``: where it is in the package, and its hash."""

    package: str  # the name after @xterm/
    version: str
    file: str  # inside the package
    integrity: str  # sha384, as a browser checks it

    @property
    def path(self) -> str:
        """Where the file is in a ``[web] assets`` folder (``node_modules/@xterm``)."""
        return f"{self.package}/{self.file}"

    @property
    def url(self) -> str:
        """The pinned file on the CDN."""
        return f"{CDN}/@xterm/{self.package}@{self.version}/{self.file}"


XTERM_JS = Asset(
    "xterm",
    XTERM_VERSION,
    "lib/xterm.js",
    "sha384-f/1U6Z9wM4D71a5eRXEZnyOTMOvjqxr2XLwh+Go1OvIl3L3tOcvUrzudnhbECwl4",
)
XTERM_CSS = Asset(
    "xterm",
    XTERM_VERSION,
    "css/xterm.css",
    "sha384-n2n7twoohnW+d3myBKaUgl7DSiwidw6MkQy9oesGzkPpMjejKRR3XlnD+5yCdtBD",
)
FIT_JS = Asset(
    "addon-fit",
    FIT_VERSION,
    "lib/addon-fit.js",
    "sha384-txoiwu4RR2GD3qySbaj+BbzibkLbSJRcfqGYMu6z1EqHil4A2dyBiBW5dlacG6OR",
)
ASSETS = (XTERM_JS, XTERM_CSS, FIT_JS)
