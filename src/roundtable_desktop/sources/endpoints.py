"""Where an outside API is when it is not at its own address: a proxy, a mirror, or a fake
server in a test.

`base_url(name, default)` gives the API's base URL: the environment variable of `ENV_VARS`
when it is set (the command line, tests), else the address saved in Settings (the window
publishes it here with `use_setting`), else `default`. Either must start with http:// or
https:// (as the model's and YouTube's base URLs must); anything else is refused with one
sentence naming where it came from (EndpointError). The names are shared vocabulary, as
the key names of llm/keys.py are: the source that uses one lives in its kind.
Holds no secret; must not import anything of a kind and must not do I/O.
"""

from __future__ import annotations

import os
import threading

from roundtable_desktop.sources.errors import SourceError

X_API = "x-api"  # kinds/debate/persona_build/sources/x.py: the X API v2
ENV_VARS = {X_API: "ROUNDTABLE_X_BASE_URL"}
LABELS = {X_API: "The X API address in Settings"}

_lock = threading.Lock()
_settings: dict[str, str] = {}


class EndpointError(SourceError):
    """A base URL that cannot be one; the message says which and why."""


def url_problem(url: str) -> str | None:
    """Why `url` cannot be a base URL, or None."""
    if not url.strip().lower().startswith(("http://", "https://")):
        return "must start with http:// or https://"
    return None


def use_setting(name: str, url: str) -> None:
    """Use `url` (from Settings; empty: the API's own address) for `name` from now on."""
    with _lock:
        if url.strip():
            _settings[name] = url.strip()
        else:
            _settings.pop(name, None)


def base_url(name: str, default: str) -> str:
    """The base URL to use for `name`: environment, then Settings, then `default`."""
    variable = ENV_VARS.get(name, "")
    from_env = os.environ.get(variable, "").strip() if variable else ""
    with _lock:
        from_settings = _settings.get(name, "")
    url, where = (from_env, variable) if from_env else (from_settings, LABELS.get(name, name))
    if not url:
        return default
    problem = url_problem(url)
    if problem is not None:
        raise EndpointError(f"{where} {problem}.")  # not quoted: it may hold a password
    return url.rstrip("/")
