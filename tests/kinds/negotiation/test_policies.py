"""The seed's policies beside relay (issue 30 point 4): the observer (useModeler) and the
planner (strategicPlanningEnabled) can each be switched off, by the set_policies edit or
the run options; the draft then goes without MODEL_OF_OTHER updates / without a
FOCUS_THIS_TURN directive. A line read aloud holds the sequencer until it has been read
(the seed awaits speakTTS), unless wait_for_speech is off. Read from the requests sent."""

from __future__ import annotations

import asyncio
import io
from contextlib import redirect_stderr, redirect_stdout

import pytest

from roundtable_desktop.cli.main import main
from roundtable_desktop.domain.events import PhaseChanged
from roundtable_desktop.engine.base import Action
from roundtable_desktop.engine.bus import EventBus
from roundtable_desktop.engine.spec import SessionContext
from roundtable_desktop.kinds.negotiation.kind import NEGOTIATION
from roundtable_desktop.kinds.negotiation.requests import model_of_other_json
from roundtable_desktop.kinds.negotiation.sequencer import (
    OBSERVER_OFF,
    PLANNER_OFF,
    READING_ALOUD,
)
from roundtable_desktop.kinds.negotiation.settings import SettingRefused
from roundtable_desktop.kinds.negotiation.state import SET_FLOW, SET_POLICIES, SET_VOICE
from roundtable_desktop.llm.errors import TransportError
from roundtable_desktop.store.database import SessionStore
from tests.fakes.scripted_model import ScriptedClient


def system_of(request) -> str:
    return request.messages[0].content


# -- the observer ---------------------------------------------------------------------------
def test_with_the_observer_off_no_observer_call_is_sent(make_game):
    game = make_game(observer="off")
    for _ in range(3):
        game.do("take_turn")

    assert game.client.of("observer") == []
    assert len(game.client.of("reply")) == 3
    assert [e.detail for e in game.of_type(PhaseChanged) if e.phase == "MODEL"] == \
        [OBSERVER_OFF] * 3


def test_with_the_observer_off_model_of_other_is_never_updated(make_game):
    game = make_game(observer="off")
    ally, keeper = (model_of_other_json(game.state, side) for side in ("ALLY", "KEEPER"))
    for _ in range(4):
        game.do("take_turn")

    drafts = game.client.of("reply")  # ALLY, KEEPER, ALLY, KEEPER
    assert all(f"MODEL_OF_OTHER(JSON): {ally}" in system_of(r) for r in drafts[0::2])
    assert all(f"MODEL_OF_OTHER(JSON): {keeper}" in system_of(r) for r in drafts[1::2])
    assert game.state.sides["KEEPER"].observed.turn == 0  # the scenario's profile


def test_with_the_observer_on_model_of_other_follows_the_observer(game):
    first = model_of_other_json(game.state, "ALLY")
    for _ in range(3):
        game.do("take_turn")
    assert game.client.of("observer")
    assert f"MODEL_OF_OTHER(JSON): {first}" not in system_of(game.client.of("reply")[-1])


# -- the planner ----------------------------------------------------------------------------
def test_with_the_planner_off_the_draft_has_no_focus_and_no_planner_call(make_game):
    game = make_game(planner="off")
    for _ in range(3):
        game.do("take_turn")

    assert game.client.of("planner") == []
    drafts = game.client.of("reply")
    assert len(drafts) == 3
    assert not any("FOCUS_THIS_TURN" in system_of(r) for r in drafts)
    assert game.state.turn_count == 3
    assert [e.detail for e in game.of_type(PhaseChanged) if e.phase == "PLAN"] == \
        [PLANNER_OFF] * 3


def test_with_the_planner_on_every_draft_has_a_focus(game):
    for _ in range(2):
        game.do("take_turn")
    assert all("FOCUS_THIS_TURN: [" in system_of(r) for r in game.client.of("reply"))


def test_with_the_planner_off_confirm_flow_waits_only_before_send(make_game):
    game = make_game(planner="off")
    game.edit(SET_FLOW, flow="confirm")
    game.do("take_turn")

    cur = game.state.current
    assert cur is not None and cur.phase == "SPEAK" and cur.draft and not cur.options
    game.do("send_draft")
    assert game.state.turn_count == 1 and game.state.current is None


# -- switching them mid-game ----------------------------------------------------------------
def test_the_policies_edit_changes_the_very_next_turn(game):
    game.do("take_turn")
    observed, planned = len(game.client.of("observer")), len(game.client.of("planner"))

    done = game.edit(SET_POLICIES, observer=False, planner=False)
    game.do("take_turn")

    assert done.changes[0].part == "policies"
    assert len(game.client.of("observer")) == observed
    assert len(game.client.of("planner")) == planned
    assert "FOCUS_THIS_TURN" not in system_of(game.client.of("reply")[-1])

    game.edit(SET_POLICIES, planner=True)
    game.do("take_turn")
    assert len(game.client.of("planner")) == planned + 1
    assert len(game.client.of("observer")) == observed  # still off


def test_the_requests_shown_leave_out_the_calls_switched_off(make_game):
    game = make_game(observer="off", planner="off")
    shown = game.session.pending_payloads()
    assert [p.request.purpose for p in shown] == ["reply"]
    game.do("take_turn")
    assert game.client.of("reply")[-1].messages == shown[0].request.messages


def test_a_policies_edit_without_a_policy_is_refused_in_one_sentence(game):
    with pytest.raises(SettingRefused, match="observer, planner or wait_for_speech"):
        game.edit(SET_POLICIES)


# -- the run options ------------------------------------------------------------------------
def run_cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["run", "--offline", "--delay", "0", "--quiet", *args])
    return code, err.getvalue()


def test_the_run_options_switch_the_observer_and_the_planner_off(tmp_path):
    db = tmp_path / "s.sqlite3"
    code, _ = run_cli("--kind", "negotiation", "--turns", "3", "--db", str(db),
                      "--observer", "off", "--planner", "off")
    assert code == 0
    with SessionStore.open(db) as store:
        (info,) = store.list_sessions()
        purposes = {c.purpose for c in store.calls(info.id)}
    assert "observer" not in purposes and "planner" not in purposes and "reply" in purposes


def test_another_kind_refuses_the_policy_options(tmp_path):
    code, err = run_cli("--kind", "tutor", "--observer", "off", "--db",
                        str(tmp_path / "s.sqlite3"))
    assert code != 0 and "has no --observer option" in err


# -- text-to-speech holds the sequencer -----------------------------------------------------
class HeldVoice:
    """A voice whose readings finish when the test says so."""

    def __init__(self) -> None:
        self.readings: list[tuple[str, str | None, asyncio.Future[None]]] = []

    def read_aloud(self, text: str, voice: str | None) -> asyncio.Future[None]:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.readings.append((text, voice, done))
        return done


def speaking_game(make_game, *, wait: bool = True):
    game = make_game()
    voice = HeldVoice()
    game.session.attach_voice(voice)
    game.edit(SET_VOICE, seat="ALLY", voice="Basso", speak=True)
    if not wait:
        game.edit(SET_POLICIES, wait_for_speech=False)
    return game, voice


def test_a_line_read_aloud_holds_the_sequencer_until_it_is_read(make_game):
    game, voice = speaking_game(make_game)

    async def play() -> tuple[int, bool, int]:
        task = asyncio.ensure_future(game.session.perform(Action(id="take_turn")))
        while not game.session.speech.holding:
            assert not task.done(), "the turn did not wait for the reading"
            await asyncio.sleep(0)
        during, running = game.state.turn_count, game.session.running
        voice.readings[-1][2].set_result(None)
        await task
        return during, running, game.state.turn_count

    during, running, after = asyncio.run(play())
    assert (during, after) == (0, 1)
    assert running  # Stop is offered while the line is read
    text, chosen, _ = voice.readings[0]
    assert text == game.state.sides["ALLY"].last_text and chosen == "Basso"
    assert any(e.phase == "SPEAK" and e.detail == READING_ALOUD
               for e in game.of_type(PhaseChanged))


def test_with_wait_for_speech_off_the_turn_does_not_wait(make_game):
    game, voice = speaking_game(make_game, wait=False)

    async def play() -> bool:
        await game.session.perform(Action(id="take_turn"))
        return voice.readings[-1][2].done()

    assert asyncio.run(play()) is False  # still being read, and the line was sent
    assert game.state.turn_count == 1


def test_stop_cuts_the_reading_short_and_the_line_is_sent(make_game):
    game, voice = speaking_game(make_game)

    async def play() -> bool:
        task = asyncio.ensure_future(game.session.perform(Action(id="take_turn")))
        while not game.session.speech.holding:
            await asyncio.sleep(0)
        game.session.stop()
        await task
        return voice.readings[-1][2].cancelled()

    assert asyncio.run(play()) is True
    assert game.state.turn_count == 1


def test_a_silent_side_is_not_read_and_nothing_waits(make_game):
    game = make_game()
    voice = HeldVoice()
    game.session.attach_voice(voice)
    game.do("take_turn")  # ALLY does not read aloud
    assert voice.readings == [] and game.state.turn_count == 1


def test_with_the_planner_off_a_failed_draft_lets_the_turn_be_taken_again():
    client = ScriptedClient(TransportError("down"), "We propose a two-week trial.")
    ctx = SessionContext(client=client, model="m", provider="offline", bus=EventBus(),
                         options={"observer": "off", "planner": "off"})
    session = asyncio.run(NEGOTIATION.create(ctx, "default"))

    assert asyncio.run(session.perform(Action(id="take_turn"))) is False
    assert session.state.current is None
    assert session.action_spec("take_turn").enabled
    assert asyncio.run(session.perform(Action(id="take_turn"))) is True
    assert session.state.turn_count == 1
    assert [r.purpose for r in client.requests] == ["reply", "reply"]
