"""Read one persona's corpus from the sources its deck config names (a worker thread).

`default_fetch` calls the source readers of sources/persona_*.py in a fixed order (X
timeline, feed, folder, manual excerpts) with the persona's limits and returns the
profile (X's when X is a source, else the config's name and handle) and every item. A
source that fails fails the persona: its CorpusSourceError (a Refusal, one clear
sentence) is raised again with the source named, so the report says which one; nothing is
built from a partial corpus the user did not ask for. The X bearer token comes from the
key store (OS keyring or environment), never from the config; the X API's address from
ROUNDTABLE_X_BASE_URL or Settings when either is set (sources/endpoints.py).
Blocking I/O: callers run it with asyncio.to_thread. Must not call models or import Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.kinds.debate.corpus import CorpusItem, CorpusProfile
from roundtable_desktop.kinds.debate.persona_build.config import (
    BuildLimits,
    DeckConfig,
    PersonaConfig,
)
from roundtable_desktop.kinds.debate.persona_build.errors import PersonaFailed
from roundtable_desktop.kinds.debate.persona_build.sources.folder import read_folder
from roundtable_desktop.kinds.debate.persona_build.sources.manual import read_manual
from roundtable_desktop.kinds.debate.persona_build.sources.x import (
    DEFAULT_BASE_URL,
    fetch_x_timeline,
)
from roundtable_desktop.llm import keys
from roundtable_desktop.sources.endpoints import X_API, EndpointError, base_url

_T = TypeVar("_T")


def default_fetch(config: DeckConfig, persona: PersonaConfig,
                  limits: BuildLimits) -> tuple[CorpusProfile, list[CorpusItem]]:
    """The persona's profile and items from its configured sources."""
    sources = persona.sources
    profile = CorpusProfile(name=persona.name, handle=persona.handle)
    items: list[CorpusItem] = []
    if sources.x:
        x_profile, found = _read("X", lambda: _x_timeline(sources.x or "", limits))
        profile = CorpusProfile(name=x_profile.name or persona.name,
                                handle=x_profile.handle or persona.handle,
                                avatar_url=x_profile.avatar_url)
        items += found
    if sources.feed:
        # Imported here: feedparser takes about 0.1 s to load, and the kind registry
        # imports this module when the app starts.
        from roundtable_desktop.kinds.debate.persona_build.sources.feed import read_feed

        items += _read("the feed", lambda: read_feed(config.resolve(sources.feed or ""),
                                                     limit=limits.feed_posts,
                                                     max_chars=limits.max_chars))
    if sources.folder:
        items += _read("the folder", lambda: read_folder(config.resolve(sources.folder or ""),
                                                         limit=limits.folder_files,
                                                         max_chars=limits.max_chars))
    if sources.manual:
        items += _read("the manual excerpts",
                       lambda: read_manual(config.resolve(sources.manual or "")))
    return profile, items


def _x_timeline(username: str, limits: BuildLimits) -> tuple[CorpusProfile, list[CorpusItem]]:
    token = keys.KeyStore().get(keys.X_KEY)
    if not token:
        raise PersonaFailed("No X bearer token: store one in Settings (Sources, X API "
                            f"bearer token), or set {keys.ENV_VARS.get(keys.X_KEY, 'it')}.")
    try:  # ROUNDTABLE_X_BASE_URL, or the address in Settings, or X's own
        where = base_url(X_API, DEFAULT_BASE_URL)
    except EndpointError as exc:
        raise PersonaFailed(f"Reading X failed: {exc}") from None
    return fetch_x_timeline(username, token=token, limit=limits.x_posts, base_url=where)


def _read(which: str, read: Callable[[], _T]) -> _T:
    try:
        return read()
    except PersonaFailed:
        raise
    except Refusal as exc:
        raise PersonaFailed(f"Reading {which} failed: {exc.message}") from None
    except OSError as exc:
        raise PersonaFailed(f"Reading {which} failed: {exc.strerror or exc}.") from None
