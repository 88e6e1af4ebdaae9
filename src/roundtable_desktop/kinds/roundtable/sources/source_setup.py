"""Choose where candidate videos come from, from the keys the user stored.

With a YouTube key (OS keyring, or ROUNDTABLE_YOUTUBE_KEY for the CLI) fetches go to
YouTube with the mock catalog behind it; without one, to the mock catalog. The CLI, the
window and `serve-mcp` all build their source here, so they agree. Must not hold the
key anywhere but inside the YouTube source.
"""

from __future__ import annotations

import os

from roundtable_desktop.kinds.roundtable.sources.fallback import (
    FallbackSource,
    candidate_source_for,
)
from roundtable_desktop.kinds.roundtable.sources.mock_catalog import MockCatalog
from roundtable_desktop.llm.keys import YOUTUBE_KEY, KeyStore
from roundtable_desktop.sources.errors import SourceError

# Points YouTube requests elsewhere: the fake YouTube server in tests, or a mirror.
YOUTUBE_BASE_URL_ENV = "ROUNDTABLE_YOUTUBE_BASE_URL"


def youtube_base_url() -> str | None:
    url = os.environ.get(YOUTUBE_BASE_URL_ENV, "").strip()
    if not url:
        return None
    if not url.startswith(("http://", "https://")):
        raise SourceError(f"{YOUTUBE_BASE_URL_ENV} must start with http:// or https://.")
    return url


def make_candidate_source(
    keys: KeyStore | None = None, *, catalog: MockCatalog | None = None
) -> FallbackSource:
    """YouTube (mock catalog behind it) when a YouTube key is stored, else the catalog."""
    keys = keys or KeyStore()
    return candidate_source_for(keys.get(YOUTUBE_KEY), catalog=catalog,
                                youtube_base_url=youtube_base_url())
