"""The persona builder (seed 004): a deck config in, persona contracts and corpora out.

Per persona: read its sources (feed, X, folder, manual excerpts; in a worker thread),
then nine model calls, all purpose `persona`, in this order and each labelled
"<Name>: <step>": filter (which ~50 items are relevant and opinionated for the deck's
topic), the six contract fields (personality, bias, stakes, epistemology, time horizon,
flip conditions; 3-5 sentences each), the evidence policy and the anchor excerpts (10-15
quotes, each checked against the corpus and given its item's URL). Then it writes
`contracts/<id>.json` (validated as debate_deck does) and `corpus/<id>.json`, both
stamped with the same corpus build time, keeping any previous version of either in
`contracts/history/` / `corpus/history/` (persona_build_output.py), and finally the deck's
`personas.json` (cards already in the deck are kept; new ones are appended).

How the window uses it (the builder dialog):

    report = await build_deck(session, config, user_decks_dir(), model=session.model,
                              only=["ada-brennan"], progress=on_progress,
                              provider=session.provider)

(`user_decks_dir` is debate_deck's: <user data>/debate/decks, where the debate kind
lists decks; a user deck wins over a bundled one of the same name, so a build into a
deck that so far is only bundled starts from a copy of it and `report.adopted` says so.)

- `session` is the live debate session: its calls are recorded by its recorder and shown
  in the Calls dock like every other call (purpose `persona`, kind = session.kind; the
  debate kind registers the offline policy for it). Stop (`session.stop()`) cancels the
  call in flight; the persona being built and the ones after it end as "stopped".
- `config` comes from `load_deck_config(path)` or, for a card made in a dialog,
  `parse_deck_config({...}, folder=...)` (persona_build_config.py); one persona's sources
  may be a feed URL/file, a folder, or a manual excerpts file: pasted excerpts are saved
  first with `save_pasted_excerpts(deck_folder, persona_id, {"excerpts": [...]})`
  (persona_build_output.py), whose path is the persona's `manual` source.
- `progress(BuildProgress)` is called on the event loop's thread: stage "fetch" before
  and after a persona's sources are read, "call" before each of its nine calls (step
  1-9, label), "write", then "done" or "failed" (detail: the files, or the reason);
  `line()` is one printable line. The calls' own events (CallStarted ...) go on the bus.
- The result is a `BuildReport`: one `PersonaResult` per persona (ok, reason, paths, the
  kept previous version); `load_deck(config.name)` then reads the deck from the user
  folder (`read_deck(Path(report.folder))` from any other `out_root`).
`fetch` replaces the real source readers (tests, or a dialog that already has items);
`clock` fixes the corpus build time.
Must not import Qt, print, or know which kind the session is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from roundtable_desktop.domain.calls import CallStatus
from roundtable_desktop.domain.refusal import Refusal
from roundtable_desktop.engine.base import SessionProtocol
from roundtable_desktop.engine.structured_call import StructuredResult, call_structured
from roundtable_desktop.kinds.debate.corpus import Corpus, CorpusItem, CorpusProfile
from roundtable_desktop.kinds.debate.deck import Anchor, Contract, EvidencePolicy
from roundtable_desktop.kinds.debate.persona_build.config import (
    BuildLimits,
    DeckConfig,
    PersonaConfig,
)
from roundtable_desktop.kinds.debate.persona_build.errors import BuildStopped, PersonaFailed
from roundtable_desktop.kinds.debate.persona_build.output import (
    Written,
    adopt_bundled_deck,
    write_deck_meta,
    write_persona,
)
from roundtable_desktop.kinds.debate.persona_build.requests import (
    FIELD_STEPS,
    PERSONA,
    STEPS,
    AnchorsReply,
    BuildPrompts,
    FieldReply,
    FilterReply,
    build_prompts,
    checked_anchors,
    field_text,
    persona_request,
)
from roundtable_desktop.kinds.debate.persona_build.source_reading import default_fetch

__all__ = ["PERSONA", "STEPS", "TOTAL_STEPS", "BuildProgress", "BuildReport", "CorpusFetch",
           "PersonaResult", "ProgressSink", "build_deck", "build_persona"]

TOTAL_STEPS = len(STEPS)  # 9
Stage = Literal["fetch", "call", "write", "done", "failed"]
# Reads one persona's sources (sync; run in a worker thread): its profile and items.
CorpusFetch = Callable[[DeckConfig, PersonaConfig, BuildLimits],
                       tuple[CorpusProfile, list[CorpusItem]]]


class BuildProgress(BaseModel):
    """One step of the build, for a progress line or bar."""

    deck: str
    persona: str                 # the persona's id
    name: str
    stage: Stage
    step: int = 0                # 1-9 while calling (0 while reading sources)
    total: int = TOTAL_STEPS
    label: str = ""              # "Ada Brennan: filter" (the call's label)
    detail: str = ""             # items read, the failure's reason, the files written

    def line(self) -> str:
        if self.stage == "call":
            return f"[{self.persona}] {self.step}/{self.total} {self.label}"
        if self.stage == "fetch":
            return f"[{self.persona}] sources: {self.detail}"
        if self.stage == "failed":
            return f"[{self.persona}] FAILED: {self.detail}"
        return f"[{self.persona}] {self.detail}"


ProgressSink = Callable[[BuildProgress], None]


class PersonaResult(BaseModel):
    """How one persona's build ended."""

    id: str
    name: str
    ok: bool = False
    reason: str = ""             # why it failed (one sentence)
    corpus_built_at: str = ""
    items_read: int = 0
    items_kept: int = 0
    anchors: int = 0
    contract_path: str = ""
    corpus_path: str = ""
    previous_contract: str = ""  # where the replaced contract was kept, if there was one
    stopped: bool = False        # the user stopped the build while this persona was built
    notes: list[str] = Field(default_factory=list)  # fixes made (a field trimmed ...)


class BuildReport(BaseModel):
    """The whole build: where the deck is and how each persona ended."""

    deck: str
    title: str
    topic: str
    folder: str = ""             # <out>/<deck>
    personas: list[PersonaResult] = Field(default_factory=list)
    personas_json: str = ""      # written when at least one card exists
    adopted: bool = False        # the deck started as a copy of the bundled deck of its name
    stopped: bool = False

    @property
    def built(self) -> list[PersonaResult]:
        return [p for p in self.personas if p.ok]

    @property
    def failed(self) -> list[PersonaResult]:
        return [p for p in self.personas if not p.ok]

    @property
    def all_failed(self) -> bool:
        return not self.built


def build_time(clock: Callable[[], datetime] | None = None) -> str:
    """The corpus build time as an ISO timestamp in UTC, to the second."""
    now = clock() if clock else datetime.now(UTC)
    return now.astimezone(UTC).isoformat(timespec="seconds")


async def build_deck(
    session: SessionProtocol, config: DeckConfig, out_root: Path, *, model: str,
    only: Sequence[str] | None = None, progress: ProgressSink | None = None,
    fetch: CorpusFetch | None = None, clock: Callable[[], datetime] | None = None,
    provider: str = "offline",
) -> BuildReport:
    """Build every persona of `config` (or those in `only`) into `out_root/<deck>/`.

    A persona that fails is reported with its reason and the others go on; a stop ends
    the build. Raises DeckConfigError for an `only` id the config does not have."""
    wanted = [config.persona(pid) for pid in dict.fromkeys(only)] if only \
        else list(config.personas)
    folder = Path(out_root) / config.name
    report = BuildReport(deck=config.name, title=config.title, topic=config.topic,
                         folder=str(folder))
    prompts = build_prompts(provider)
    folder.mkdir(parents=True, exist_ok=True)
    report.adopted = adopt_bundled_deck(folder)
    for persona in wanted:
        if report.stopped:
            report.personas.append(PersonaResult(id=persona.id, name=persona.name,
                                                 reason="Not built: the build was stopped."))
            continue
        result = await build_persona(session, config, persona, folder, model=model,
                                     progress=progress, fetch=fetch, clock=clock,
                                     prompts=prompts)
        report.stopped = result.stopped
        report.personas.append(result)
    meta = write_deck_meta(config, folder, [p.id for p in report.built])
    report.personas_json = str(meta) if meta else ""
    return report


async def build_persona(
    session: SessionProtocol, config: DeckConfig, persona: PersonaConfig, folder: Path, *,
    model: str, progress: ProgressSink | None = None, fetch: CorpusFetch | None = None,
    clock: Callable[[], datetime] | None = None, prompts: BuildPrompts | None = None,
) -> PersonaResult:
    """Build one persona into the deck folder `folder`; never raises for a failure of
    its own (the result says why), only for a store error."""
    result = PersonaResult(id=persona.id, name=persona.name)
    run = _PersonaRun(session, config, persona, model, progress, prompts or build_prompts())
    try:
        limits = config.limits_for(persona)
        run.tell("fetch", detail="reading " + ", ".join(persona.sources.named()))
        profile, items = await asyncio.to_thread(fetch or default_fetch, config, persona,
                                                 limits)
        if not items:
            raise PersonaFailed("Its sources gave no text to build from.")
        result.items_read = len(items)
        result.corpus_built_at = build_time(clock)
        run.tell("fetch", detail=f"{len(items)} item(s) read")
        contract, kept = await run.calls(items, limits, result.corpus_built_at)
        result.items_kept = len(kept)
        result.anchors = len(contract.anchors)
        result.notes = run.notes
        corpus = Corpus(persona_id=persona.id, built_at=result.corpus_built_at,
                        profile=profile, sources=persona.sources.named(), items=items)
        run.tell("write", step=TOTAL_STEPS, detail="writing the contract and corpus")
        written: Written = write_persona(config, persona, folder, contract, corpus)
    except Refusal as exc:  # PersonaFailed, BuildStopped, DeckConfigError ...
        result.reason = exc.message
        result.stopped = isinstance(exc, BuildStopped)
        run.tell("failed", detail=exc.message)
        return result
    result.ok = True
    result.contract_path = str(written.contract)
    result.corpus_path = str(written.corpus)
    result.previous_contract = str(written.previous_contract or "")
    kept_note = f"; the previous version is kept as {written.previous_contract}" \
        if written.previous_contract else ""
    run.tell("done", step=TOTAL_STEPS,
             detail=f"wrote {written.contract} ({result.anchors} anchors, corpus built "
                    f"{result.corpus_built_at}){kept_note}")
    return result


class _PersonaRun:
    """One persona's nine calls, in order, through the session."""

    def __init__(self, session: SessionProtocol, config: DeckConfig, persona: PersonaConfig,
                 model: str, progress: ProgressSink | None, prompts: BuildPrompts) -> None:
        self.session = session
        self.config = config
        self.persona = persona
        self.model = model
        self.progress = progress
        self.prompts = prompts
        self.step = 0
        self.notes: list[str] = []

    def tell(self, stage: Stage, *, step: int | None = None, label: str = "",
             detail: str = "") -> None:
        if self.progress is not None:
            self.progress(BuildProgress(
                deck=self.config.name, persona=self.persona.id, name=self.persona.name,
                stage=stage, step=self.step if step is None else step, label=label,
                detail=detail))

    def label(self, step: str) -> str:
        return f"{self.persona.name}: {step.replace('_', ' ')}"

    async def ask(self, step: str, items: list[CorpusItem], limits: BuildLimits,
                  reply: type[BaseModel]) -> StructuredResult[Any]:
        self.step += 1
        label = self.label(step)
        self.tell("call", label=label)
        request, layers = persona_request(self.prompts, self.session.kind, self.model, step,
                                          self.config, self.persona, items, limits, reply)
        result = await call_structured(self.session, self.persona.id, request, reply,
                                       label=label, layers=layers)
        status = result.outcome.status if result.outcome else None
        if status == CallStatus.CANCELLED:
            raise BuildStopped(f"Stopped during “{label}”.")
        return result

    async def calls(self, items: list[CorpusItem], limits: BuildLimits, built_at: str,
                    ) -> tuple[Contract, list[CorpusItem]]:
        """The nine calls; the contract they make (stamped `built_at`) and the kept items."""
        chosen = await self.ask("filter", items, limits, FilterReply)
        kept = _kept(items, chosen, limits.keep)
        fields: dict[str, str] = {}
        for step in FIELD_STEPS:
            result = await self.ask(step, kept, limits, FieldReply)
            text, note = field_text(result, self.label(step))
            if note:
                self.notes.append(note)
            fields[step] = text
        policy = await self.ask("evidence", kept, limits, EvidencePolicy)
        if policy.value is None:
            raise PersonaFailed(f"“{self.label('evidence')}” gave no usable evidence "
                                f"policy: {policy.error}")
        anchors_reply = await self.ask("anchors", kept, limits, AnchorsReply)
        anchors: list[Anchor] = checked_anchors(anchors_reply, kept, self.label("anchors"),
                                                self.persona.id)
        p = self.persona
        try:
            contract = Contract(
                id=p.id, name=p.name, handle=p.handle, avatar=f"{p.id}.png", suite=p.suite,
                locked=p.locked, evidence_policy=policy.value, anchors=anchors,
                corpus_built_at=built_at, **fields)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise PersonaFailed(f"The contract is not valid: field "
                                f"{'.'.join(map(str, first['loc']))}: {first['msg']}.") from None
        return contract, kept


def _kept(items: list[CorpusItem], chosen: StructuredResult[Any], keep: int
          ) -> list[CorpusItem]:
    """The items the filter picked, in its order (unknown and repeated indices dropped)."""
    if chosen.value is None:
        raise PersonaFailed(f"The filter call gave no usable answer: {chosen.error}")
    seen: list[int] = []
    for index in chosen.value.indices:
        if 0 <= index < len(items) and index not in seen:
            seen.append(index)
    if not seen:
        raise PersonaFailed("The filter call picked no item of the corpus.")
    return [items[i] for i in seen[:keep]]
