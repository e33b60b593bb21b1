"""trickref: a table referee for trick-taking card games.

One installed package. Its parts live in the repository's top-level folders, as the design
card lays them out (engine/, device/, ui/, firmware/); this folder links them in as
trickref.engine, trickref.device, trickref.ui and trickref.firmware, and the wheel carries
them there, so nothing else lands at the top of site-packages.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("trickref")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"
