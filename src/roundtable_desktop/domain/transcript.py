"""What a transcript line is, for every kind: spoken, a tool that ran, a refusal, or a
system line. The shared Transcript dock and the exports mark lines by it. Must not import
anything but the standard library.
"""

from __future__ import annotations

from enum import StrEnum


class TranscriptKind(StrEnum):
    SPOKEN = "spoken"  # said by a participant (the meeting's addTranscript)
    TOOL = "tool"  # a tool ran
    REFUSAL = "refusal"  # a tool was refused or failed
    SYSTEM = "system"  # turn changes, the session ended
