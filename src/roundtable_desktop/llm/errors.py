"""The exception hierarchy of model calls.

    LLMError                      anything that made a call fail; `partial` keeps text received
    ├── ConfigError               no API key, a malformed base URL: nothing was sent
    ├── TransportError            could not connect, or the connection dropped before a reply
    ├── CallTimeout               connect/read timeout or the per-call deadline passed
    ├── HTTPStatusError           the server answered with an error status
    │   ├── AuthError             401 / 403: the key is missing or wrong
    │   ├── RateLimited           429: `retry_after` seconds, when the server said
    │   └── ResponseFormatRefused 400: the provider has no JSON mode (`response_format`)
    └── StreamError               the stream broke: an error object inside it, a malformed
                                  chunk, or it ended without [DONE] / finish_reason

Messages are one plain sentence a user can act on, and never contain an API key: every
message is scrubbed of known secrets here, whatever built it (domain/secrets.py). `final`
says that sending the same request again cannot help until the user changes something
(the key, the settings, the deadline): a caller that tries again on its own (the
headless driver) stops instead.
Must not import httpx types into the message text or hold live connections.
"""

from __future__ import annotations

from roundtable_desktop.domain.secrets import scrub


class LLMError(Exception):
    """Base of every model-call failure."""

    hint: str = ""
    final: bool = False

    def __init__(
        self, message: str, *, partial: str = "", hint: str = "", final: bool | None = None
    ) -> None:
        message = scrub(message)
        super().__init__(message)
        self.message = message
        self.partial = partial
        if hint:
            self.hint = hint
        if final is not None:
            self.final = final


class ConfigError(LLMError):
    hint = "Open Settings and check the provider, base URL and API key."
    final = True


class TransportError(LLMError):
    hint = "Check the network or the base URL, or switch to the offline model."


class CallTimeout(LLMError):
    """A timeout; `final` when the whole call's deadline passed (not one slow read)."""

    hint = "The server is slow; try again or raise the timeout in Settings."


class HTTPStatusError(LLMError):
    def __init__(
        self,
        message: str,
        *,
        status: int,
        retry_after: float | None = None,
        partial: str = "",
        hint: str = "",
        final: bool | None = None,
    ) -> None:
        super().__init__(message, partial=partial, hint=hint, final=final)
        self.status = status
        self.retry_after = retry_after


class AuthError(HTTPStatusError):
    hint = "The API key was rejected: set a valid key in Settings."
    final = True


class RateLimited(HTTPStatusError):
    hint = "The provider is rate limiting; wait a moment and try again."


class StreamError(LLMError):
    hint = "The reply broke off; whatever arrived is kept. Try the call again."


class ResponseFormatRefused(HTTPStatusError):
    """The provider does not accept `response_format`; the client remembers the endpoint
    and `adapt()` moves the JSON instruction into the prompt instead."""

    hint = "This model has no JSON mode; the call is sent again with the instruction in the prompt."
