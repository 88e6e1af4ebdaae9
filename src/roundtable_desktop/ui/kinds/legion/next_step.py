"""What the Commander may do next, in one sentence, for the top of the legion's chat dock
("Write to your minions: pick a channel and press Enter").

Plain functions over the legion's state and what the window knows (replay, who is
thinking, the selected channel). Must not build widgets or change the legion.
"""

from __future__ import annotations

from collections.abc import Iterable

from roundtable_desktop.kinds.legion.state import ChannelType, LegionState

AUTOCHAT_KEYS = "Ctrl+Shift+Return"


def names_in_words(names: list[str]) -> str:
    """"Alpha", "Alpha and Beta", "Alpha, Beta and Gamma"."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def thinking_sentence(thinking: Iterable[tuple[str, str]], channel: str | None = None) -> str:
    """E.g. "Alpha and Beta are thinking in #war-room…" ("" when no one is)."""
    pairs = sorted(thinking)
    if channel is not None:
        pairs = [(name, chan) for name, chan in pairs if chan == channel]
    if not pairs:
        return ""
    names = list(dict.fromkeys(name for name, _ in pairs))
    channels = list(dict.fromkeys(chan for _, chan in pairs))
    verb = "is" if len(names) == 1 else "are"
    where = f" in #{channels[0]}" if len(channels) == 1 else ""
    return f"{names_in_words(names)} {verb} thinking{where}…"


def at_work_lines(thinking: Iterable[tuple[str, str]], typing: Iterable[tuple[str, str]],
                  channel: str | None) -> str:
    """One line per minion at work in `channel`: "Alpha is typing…" once it has chosen to
    speak (its reply is being written or waits its predicted time), else "Beta is
    thinking…" ("" when no one is)."""
    writing = {name for name, chan in typing if chan == channel}
    names = sorted({name for name, chan in thinking if chan == channel} | writing)
    return "\n".join(f"{name} is {'typing' if name in writing else 'thinking'}…"
                     for name in sorted(names, key=lambda n: (n not in writing, n)))


def next_sentence(state: LegionState | None, *, channel: str | None, read_only: bool,
                  thinking: Iterable[tuple[str, str]] = ()) -> str:
    """What to do next, for the Commander."""
    if state is None:
        return "No legion session is shown: start one (Ctrl+N, kind Legion)."
    if read_only:
        return "Replay is read-only: step with Alt+Left / Alt+Right, or leave it."
    if state.ended:
        return "The session has ended: export it, replay it or start a new one (Ctrl+N)."
    busy = thinking_sentence(thinking)
    try:
        shown = state.channel(channel) if channel else None
    except KeyError:
        shown = None
    if shown is not None and shown.type == ChannelType.MINIONS:
        return (f"#{shown.id} is for the minions alone: write a topic for them and press "
                "Enter.")
    if busy:
        return f"{busy} You may keep writing: pick a channel and press Enter."
    if state.autochat_left > 0 and state.autochat_channel:
        return (f"The minions may answer each other in #{state.autochat_channel}: press "
                f"{AUTOCHAT_KEYS} (or Auto), or write to them.")
    return ("Write to your minions: pick a channel and press Enter (@name makes that "
            "minion answer).")
